package dev.jobqueue.testing;

/** Row counts a retention test checks after every cleanup. */
public final class RetentionFixtures {

	private RetentionFixtures() {
	}

	/** Attempts and events whose job is gone: must always be 0. */
	public static long orphans(TestDatabase db) {
		return orphans(db, "");
	}

	public static long orphans(TestDatabase db, String prefix) {
		return db
			.count("SELECT count(*) FROM " + prefix + "job_attempts WHERE job_id NOT IN (SELECT id FROM " + prefix
					+ "jobs)")
				+ db.count("SELECT count(*) FROM " + prefix + "job_events WHERE job_id NOT IN (SELECT id FROM " + prefix
						+ "jobs)");
	}

}
