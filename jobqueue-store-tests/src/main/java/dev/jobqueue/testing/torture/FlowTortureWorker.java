package dev.jobqueue.testing.torture;

import java.time.Duration;
import java.util.Map;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.WorkerHarness;

/**
 * A worker JVM of the flow torture test ({@link FlowTortureHarness}), on any store.
 * Arguments: those of every torture worker ({@link WorkerMain}), with the claim-ahead
 * ({@link #DEFAULT_CLAIM_AHEAD} for its default). Every type's body records its start and
 * end ({@link FlowRecords}) and sleeps its payload's milliseconds between them; the types
 * differ only in their limits ({@link #LIMITS}). It stops and exits as every torture
 * worker does ({@link WorkerMain#run}).
 */
public final class FlowTortureWorker {

	/** One key's jobs one after another, in enqueue order. */
	public static final String ORDERED = "ordered";

	/** At most two running jobs per key. */
	public static final String PAIRS = "pairs";

	/**
	 * A rate limit on the type and a tighter one per key, over windows of different
	 * lengths.
	 */
	public static final String RATED = "rated";

	/**
	 * A rate limit of 20 starts a second and nothing else, for the measurement at the
	 * handlers on a saturated machine.
	 */
	public static final String SATURATED_RATED = "saturatedRated";

	/** Keyed jobs without limits: only fairness across keys. */
	public static final String FAIR = "fair";

	/** Keyed jobs with at most two running per key, for fairness under a key limit. */
	public static final String FAIR_PAIRS = "fairPairs";

	/** The flow control of each type. */
	public static final Map<String, FlowControl> LIMITS = Map.of(ORDERED, new FlowControl(null, null, 0, true, true),
			PAIRS, new FlowControl(null, null, 2, false, true), RATED,
			new FlowControl(RateLimit.parse("30/3s"), RateLimit.parse("6/2s"), 0, false, true), FAIR, FlowControl.NONE,
			FAIR_PAIRS, new FlowControl(null, null, 2, false, true), SATURATED_RATED,
			new FlowControl(RateLimit.parse("20/1s"), null, 0, false, true));

	private FlowTortureWorker() {
	}

	/**
	 * The claim-ahead argument that leaves it at its default, following the worker's
	 * pace, as an application has it.
	 */
	public static final int DEFAULT_CLAIM_AHEAD = -1;

	public static void main(String[] args) throws Exception {
		WorkerMain main = WorkerMain.of(args);
		int claimAhead = Integer.parseInt(main.extra().get(0));
		StoreFixture db = main.store().open(main.location(), main.threads() + 2);
		FlowRecords runs = FlowRecords.in(main.records());
		WorkerHarness harness = WorkerHarness.onSystemClock(db)
			.concurrency(main.threads())
			.lease(main.lease())
			.shutdownTimeout(Duration.ofSeconds(2))
			.pollInterval(Duration.ofMillis(50));
		if (claimAhead != DEFAULT_CLAIM_AHEAD) {
			harness.claimAhead(claimAhead);
		}
		LIMITS.forEach((type, limits) -> harness.handle(new HandlerDefinition(type, (payload, context) -> {
			runs.started(context.jobId(), context.attempt());
			long sleep = Long.parseLong(payload);
			if (sleep > 0) {
				Thread.sleep(sleep);
			}
			runs.ended(context.jobId(), context.attempt());
			return null;
		}, 0, null, 0, true, type, 0, limits)));
		main.run(main.worker(harness), db);
	}

}
