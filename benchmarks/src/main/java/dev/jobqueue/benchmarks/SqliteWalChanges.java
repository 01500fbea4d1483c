package dev.jobqueue.benchmarks;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a SQLite write-ahead log holds, b-tree by b-tree: the frames (page images) it
 * wrote, and the cells (rows of a table, entries of an index) each transaction added and
 * removed. Each committed transaction's new page images are compared with the images
 * before it (the previous frame of the page, or the database file, which must hold
 * everything before the first frame: no checkpoint may copy frames back while the log is
 * read); a cell that only moved to another page of the same b-tree in the transaction (a
 * page split) counts neither as added nor as removed. SQLite's index b-trees keep entries
 * in their interior pages too, so those count; a table's interior pages hold only keys of
 * its rows, so they do not.
 * <p>
 * The file formats are those of <a href="https://www.sqlite.org/fileformat2.html">the
 * SQLite database file format</a>.
 */
final class SqliteWalChanges {

	private static final int WAL_HEADER = 32;

	private static final int FRAME_HEADER = 24;

	private static final int INTERIOR_INDEX = 2;

	private static final int INTERIOR_TABLE = 5;

	private static final int LEAF_INDEX = 10;

	private static final int LEAF_TABLE = 13;

	private static final String UNMAPPED = "(unmapped)";

	private static final String FREE = "(free list)";

	private static final String POINTER_MAP = "(pointer map)";

	/** Frames, and cells added and removed, of one b-tree. */
	record Btree(long frames, long added, long removed) {

		Btree plus(Btree other) {
			return new Btree(this.frames + other.frames, this.added + other.added, this.removed + other.removed);
		}

	}

	/**
	 * The log's committed frames, their bytes in the file (header and page image each),
	 * and each b-tree's share, by name ("(unmapped)" for a page no b-tree holds at the
	 * end, such as a freed one).
	 */
	record Log(long frames, long bytes, Map<String, Btree> btrees) {

	}

	private final int pageSize;

	private final int usable;

	private final long pointerMapEvery;

	private SqliteWalChanges(int pageSize, int usable, long pointerMapEvery) {
		this.pageSize = pageSize;
		this.usable = usable;
		this.pointerMapEvery = pointerMapEvery;
	}

	/** The b-tree a page belongs to, or what else it is. */
	private String owner(Map<Long, String> owners, long pageNumber) {
		if (this.pointerMapEvery > 0 && (pageNumber - 2) % this.pointerMapEvery == 0) {
			return POINTER_MAP;
		}
		return owners.getOrDefault(pageNumber, UNMAPPED);
	}

	/**
	 * Reads the log of {@code database} ({@code database-wal}).
	 * @param pageOwners the b-tree of each page before the log's first frame, by page
	 * number (from {@code dbstat}); a page of the file that no b-tree holds then is on
	 * the free list (its stale cells left when it was freed, before the log); pages that
	 * change hands later (from the free list, or freed) are followed from the pages that
	 * point to them
	 */
	static Log read(Path database, Map<Long, String> pageOwners) throws IOException {
		Path wal = database.resolveSibling(database.getFileName() + "-wal");
		try (RandomAccessFile file = new RandomAccessFile(database.toFile(), "r");
				InputStream log = Files.newInputStream(wal)) {
			byte[] header = new byte[100];
			file.readFully(header);
			int size = (int) readInt(header, 16, 2);
			int pageSize = (size == 1) ? 65_536 : size;
			int usable = pageSize - (header[20] & 0xFF);
			// Auto-vacuum keeps pointer-map pages: page 2, and one after each run of
			// pages whose parents it records.
			long pointerMapEvery = (readInt(header, 52, 4) != 0) ? usable / 5 + 1 : 0;
			return new SqliteWalChanges(pageSize, usable, pointerMapEvery).read(file, new DataInputStream(log),
					pageOwners);
		}
	}

	private Log read(RandomAccessFile file, DataInputStream log, Map<Long, String> pageOwners) throws IOException {
		byte[] header = new byte[WAL_HEADER];
		try {
			log.readFully(header);
		}
		catch (EOFException ex) {
			return new Log(0, 0, Map.of());
		}
		if (readInt(header, 8, 4) != this.pageSize) {
			throw new IllegalStateException(
					"The log's page size " + readInt(header, 8, 4) + " is not the database's " + this.pageSize);
		}
		long salt1 = readInt(header, 16, 4);
		long salt2 = readInt(header, 20, 4);
		Map<Long, String> owners = new HashMap<>(pageOwners);
		for (long pageNumber = 1; pageNumber <= file.length() / this.pageSize; pageNumber++) {
			if (!POINTER_MAP.equals(owner(owners, pageNumber))) {
				owners.putIfAbsent(pageNumber, FREE);
			}
		}
		Map<Long, Long> framesOfPage = new HashMap<>();
		Map<Long, byte[]> latest = new HashMap<>();
		Map<Long, byte[]> transaction = new LinkedHashMap<>();
		Map<String, Btree> btrees = new TreeMap<>();
		long frames = 0;
		long pending = 0;
		byte[] frameHeader = new byte[FRAME_HEADER];
		while (true) {
			try {
				log.readFully(frameHeader);
			}
			catch (EOFException ex) {
				break;
			}
			byte[] page = new byte[this.pageSize];
			log.readFully(page);
			if (readInt(frameHeader, 8, 4) != salt1 || readInt(frameHeader, 12, 4) != salt2) {
				// A frame of an earlier generation of the log: the log was restarted, so
				// frames of the measured window are gone.
				throw new IllegalStateException("The log holds frames of an earlier generation: it was checkpointed "
						+ "and restarted while it was read; pin it with an open read transaction");
			}
			long pageNumber = readInt(frameHeader, 0, 4);
			transaction.put(pageNumber, page);
			framesOfPage.merge(pageNumber, 1L, Long::sum);
			pending++;
			if (readInt(frameHeader, 4, 4) != 0) {
				commit(file, transaction, framesOfPage, latest, owners, btrees);
				frames += pending;
				pending = 0;
			}
		}
		return new Log(frames, frames * (FRAME_HEADER + this.pageSize), btrees);
	}

	/**
	 * Adds the frames of one committed transaction, and the cells it added and removed,
	 * per b-tree. A cell leaves with the b-tree its page belonged to before the
	 * transaction and arrives with the one it belongs to after; a page put on the free
	 * list loses its cells, which SQLite does not write (it never rewrites a free page).
	 */
	private void commit(RandomAccessFile file, Map<Long, byte[]> transaction, Map<Long, Long> framesOfPage,
			Map<Long, byte[]> latest, Map<Long, String> owners, Map<String, Btree> btrees) throws IOException {
		Map<Long, String> ownersBefore = new HashMap<>();
		for (long pageNumber : transaction.keySet()) {
			ownersBefore.put(pageNumber, owner(owners, pageNumber));
		}
		follow(transaction, owners);
		Map<String, Map<String, Integer>> changes = new HashMap<>();
		Set<Long> freed = new HashSet<>();
		if (transaction.containsKey(1L)) {
			for (long free : freePages(file, transaction, latest)) {
				if (FREE.equals(owners.get(free))) {
					continue;
				}
				freed.add(free);
				String owner = ownersBefore.getOrDefault(free, owner(owners, free));
				for (String cell : cells(before(file, latest, free), free)) {
					changes.computeIfAbsent(owner, (name) -> new HashMap<>()).merge(cell, -1, Integer::sum);
				}
				owners.put(free, FREE);
			}
		}
		for (Map.Entry<Long, byte[]> written : transaction.entrySet()) {
			long pageNumber = written.getKey();
			if (!freed.contains(pageNumber)) {
				String ownerBefore = ownersBefore.get(pageNumber);
				// A page off the free list: what it held before it was freed left then
				if (!FREE.equals(ownerBefore)) {
					Map<String, Integer> removed = changes.computeIfAbsent(ownerBefore, (name) -> new HashMap<>());
					for (String cell : cells(before(file, latest, pageNumber), pageNumber)) {
						removed.merge(cell, -1, Integer::sum);
					}
				}
				Map<String, Integer> added = changes.computeIfAbsent(owner(owners, pageNumber),
						(name) -> new HashMap<>());
				for (String cell : cells(written.getValue(), pageNumber)) {
					added.merge(cell, 1, Integer::sum);
				}
			}
			latest.put(pageNumber, written.getValue());
		}
		framesOfPage
			.forEach((written, count) -> btrees.merge(owner(owners, written), new Btree(count, 0, 0), Btree::plus));
		framesOfPage.clear();
		transaction.clear();
		changes.forEach((owner, cells) -> {
			long added = 0;
			long removed = 0;
			for (int change : cells.values()) {
				if (change > 0) {
					added += change;
				}
				else {
					removed -= change;
				}
			}
			if (added + removed > 0) {
				btrees.merge(owner, new Btree(0, added, removed), Btree::plus);
			}
		});
	}

	/** A page as it was before the transaction being read. */
	private byte[] before(RandomAccessFile file, Map<Long, byte[]> latest, long pageNumber) throws IOException {
		byte[] page = latest.get(pageNumber);
		return (page != null) ? page : fromFile(file, pageNumber);
	}

	/**
	 * The pages on the free list after a transaction that wrote page 1 (whose header
	 * holds the list's first trunk page and length, so every change of the list writes
	 * it): the trunk pages and the leaf pages they list.
	 */
	private List<Long> freePages(RandomAccessFile file, Map<Long, byte[]> transaction, Map<Long, byte[]> latest)
			throws IOException {
		byte[] first = transaction.get(1L);
		long total = readInt(first, 36, 4);
		List<Long> free = new ArrayList<>();
		long trunk = readInt(first, 32, 4);
		while (trunk != 0 && free.size() < total) {
			byte[] page = transaction.get(trunk);
			if (page == null) {
				page = before(file, latest, trunk);
			}
			free.add(trunk);
			long leaves = readInt(page, 4, 4);
			for (int i = 0; i < leaves && 8 + 4 * i + 4 <= page.length; i++) {
				free.add(readInt(page, 8 + 4 * i, 4));
			}
			trunk = readInt(page, 0, 4);
		}
		return free;
	}

	/**
	 * Gives each page the b-tree of the interior page or cell that points to it in the
	 * transaction: a page taken from the free list, or a b-tree page that became an
	 * overflow page, changes hands only through a pointer written in the same
	 * transaction. Roots never move, so the pointers are followed from pages whose b-tree
	 * is known until nothing changes.
	 */
	private void follow(Map<Long, byte[]> transaction, Map<Long, String> owners) {
		boolean changed = true;
		while (changed) {
			changed = false;
			for (Map.Entry<Long, byte[]> written : transaction.entrySet()) {
				String owner = owners.get(written.getKey());
				if (owner == null) {
					continue;
				}
				for (long pointed : pointers(written.getValue(), written.getKey(), transaction)) {
					if (!owner.equals(owners.put(pointed, owner))) {
						changed = true;
					}
				}
			}
		}
	}

	/**
	 * The pages a page points to: an interior page's children, a cell's first overflow
	 * page; for an overflow page (one that a cell of this transaction points to), the
	 * next page of its chain.
	 */
	private List<Long> pointers(byte[] page, long pageNumber, Map<Long, byte[]> transaction) {
		int header = (pageNumber == 1) ? 100 : 0;
		int type = page[header];
		List<Long> pointers = new ArrayList<>();
		if (type != INTERIOR_INDEX && type != INTERIOR_TABLE && type != LEAF_INDEX && type != LEAF_TABLE) {
			return pointers;
		}
		boolean interior = type == INTERIOR_INDEX || type == INTERIOR_TABLE;
		int count = (int) readInt(page, header + 3, 2);
		int cellPointers = header + (interior ? 12 : 8);
		if (interior) {
			pointers.add(readInt(page, header + 8, 4));
		}
		for (int i = 0; i < count; i++) {
			int start = (int) readInt(page, cellPointers + 2 * i, 2);
			if (interior) {
				pointers.add(readInt(page, start, 4));
				start += 4;
			}
			if (type == INTERIOR_TABLE) {
				continue;
			}
			int[] position = { start };
			long payload = varint(page, position);
			if (type == LEAF_TABLE) {
				varint(page, position);
			}
			int local = localPayload(payload, type == LEAF_TABLE);
			if (local < payload) {
				long overflow = readInt(page, position[0] + local, 4);
				pointers.add(overflow);
				// The chain's later pages, as far as this transaction wrote them
				byte[] next = transaction.get(overflow);
				for (int hops = 0; next != null && readInt(next, 0, 4) != 0 && hops < transaction.size(); hops++) {
					long following = readInt(next, 0, 4);
					pointers.add(following);
					next = transaction.get(following);
				}
			}
		}
		return pointers;
	}

	private byte[] fromFile(RandomAccessFile file, long pageNumber) throws IOException {
		byte[] page = new byte[this.pageSize];
		long offset = (pageNumber - 1) * this.pageSize;
		if (offset + this.pageSize <= file.length()) {
			file.seek(offset);
			file.readFully(page);
		}
		// else a page the database file does not have yet: no cells
		return page;
	}

	/**
	 * The cells of a b-tree page that hold rows or index entries, as text of their bytes
	 * (without an interior cell's child pointer, which a split changes); none for a
	 * table's interior page, an overflow page or a free page.
	 */
	List<String> cells(byte[] page, long pageNumber) {
		int header = (pageNumber == 1) ? 100 : 0;
		int type = page[header];
		if (type != INTERIOR_INDEX && type != LEAF_INDEX && type != LEAF_TABLE) {
			return List.of();
		}
		int count = (int) readInt(page, header + 3, 2);
		int pointers = header + ((type == INTERIOR_INDEX) ? 12 : 8);
		List<String> cells = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			int start = (int) readInt(page, pointers + 2 * i, 2);
			if (type == INTERIOR_INDEX) {
				start += 4;
			}
			int[] position = { start };
			long payload = varint(page, position);
			if (type == LEAF_TABLE) {
				varint(page, position);
			}
			int local = localPayload(payload, type == LEAF_TABLE);
			int end = position[0] + local + ((local < payload) ? 4 : 0);
			cells.add(new String(page, start, end - start, StandardCharsets.ISO_8859_1));
		}
		return cells;
	}

	/** The bytes of a payload kept on its b-tree page; the rest overflows. */
	private int localPayload(long payload, boolean tableLeaf) {
		int most = tableLeaf ? this.usable - 35 : ((this.usable - 12) * 64 / 255) - 23;
		if (payload <= most) {
			return (int) payload;
		}
		int least = ((this.usable - 12) * 32 / 255) - 23;
		int kept = (int) (least + ((payload - least) % (this.usable - 4)));
		return (kept <= most) ? kept : least;
	}

	private static long varint(byte[] bytes, int[] position) {
		long value = 0;
		for (int i = 0; i < 8; i++) {
			int b = bytes[position[0]++] & 0xFF;
			value = (value << 7) | (b & 0x7F);
			if ((b & 0x80) == 0) {
				return value;
			}
		}
		return (value << 8) | (bytes[position[0]++] & 0xFF);
	}

	private static long readInt(byte[] bytes, int offset, int length) {
		long value = 0;
		for (int i = 0; i < length; i++) {
			value = (value << 8) | (bytes[offset + i] & 0xFF);
		}
		return value;
	}

}
