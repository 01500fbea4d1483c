package dev.jobqueue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A counter several JVMs share through a small file: how many handlers run right now, and
 * the most that ever did. The file lock orders the processes, the JVM-wide monitor the
 * threads of one process (a JVM may hold only one lock on a file).
 */
public final class SharedCounter {

	private static final Object monitor = new Object();

	private SharedCounter() {
	}

	/** Counts a handler in. */
	public static void enter(Path file) {
		update(file, 1);
	}

	/** Counts a handler out. */
	public static void exit(Path file) {
		update(file, -1);
	}

	/** The most handlers that ever ran at once. */
	public static long max(Path file) {
		return read(file)[1];
	}

	/** Handlers running now. */
	public static long current(Path file) {
		return read(file)[0];
	}

	private static long[] read(Path file) {
		synchronized (monitor) {
			try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
					StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
				return values(channel);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	private static void update(Path file, int delta) {
		synchronized (monitor) {
			try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
					StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
				long[] values = values(channel);
				values[0] += delta;
				values[1] = Math.max(values[1], values[0]);
				ByteBuffer buffer = ByteBuffer.allocate(16).putLong(values[0]).putLong(values[1]).flip();
				channel.write(buffer, 0);
				channel.force(false);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	private static long[] values(FileChannel channel) throws IOException {
		ByteBuffer buffer = ByteBuffer.allocate(16);
		channel.read(buffer, 0);
		if (buffer.position() < 16) {
			return new long[2];
		}
		buffer.flip();
		return new long[] { buffer.getLong(), buffer.getLong() };
	}

}
