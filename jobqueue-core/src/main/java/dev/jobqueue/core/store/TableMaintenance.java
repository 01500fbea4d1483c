package dev.jobqueue.core.store;

import java.util.List;

/**
 * Upkeep of a server database whose updates and deletes leave dead row versions behind
 * until a vacuum reclaims them (PostgreSQL). The server's autovacuum does this on its
 * own; where it is off, the queue's tables grow without bound unless someone vacuums
 * them. A store offers this through {@link QueueStorage#tableMaintenance()} only where
 * its database needs it.
 */
public interface TableMaintenance {

	/**
	 * The queue's tables that autovacuum leaves alone: all of them when it is off on the
	 * server (or cannot run there), those whose own settings turn it off; empty when it
	 * looks after every one. One short read.
	 */
	List<String> tablesWithoutAutovacuum();

	/**
	 * Vacuums and analyses the queue's tables, outside any transaction. A plain vacuum
	 * blocks neither reads nor writes; it makes the space of dead rows reusable.
	 */
	void vacuum();

}
