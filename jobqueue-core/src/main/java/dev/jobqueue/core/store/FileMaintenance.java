package dev.jobqueue.core.store;

/**
 * Upkeep of a database that lives in files the queue looks after itself (SQLite): handing
 * free pages back to the file system and keeping the write-ahead log short. A store
 * offers it through {@link QueueStorage#fileMaintenance()} only where the database needs
 * it; a server database (PostgreSQL) does this on its own and offers none.
 */
public interface FileMaintenance {

	/**
	 * Hands up to {@code maxPages} free pages back to the file system, in one short
	 * transaction. Does nothing unless the file has incremental vacuum on.
	 * @return the bytes released
	 */
	long reclaimFreeSpace(int maxPages);

	/**
	 * Copies the write-ahead log into the database. A passive checkpoint copies what it
	 * can without waiting for anyone; {@code truncate} waits briefly for readers, then
	 * empties the log file.
	 * @return sizes after the checkpoint
	 */
	StorageStats checkpoint(boolean truncate);

	/**
	 * Switches incremental vacuum on for a database created without it, which takes a
	 * full rewrite of the file. Heavy: run it off-peak.
	 * @return sizes afterwards
	 */
	StorageStats enableIncrementalVacuum();

}
