package dev.jobqueue.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Clocks, thread fan-out and percentiles shared by the scenarios. */
final class Timing {

	private Timing() {
	}

	static double jobsPerSecond(long jobs, long nanos) {
		return jobs / (nanos / 1e9);
	}

	/**
	 * Wall-clock microseconds since the epoch: comparable between processes on one
	 * machine.
	 */
	static long epochMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
	}

	/**
	 * Starts every task at once on its own thread; returns the nanoseconds until the last
	 * one finished.
	 */
	static long timeParallel(List<Callable<Void>> tasks) {
		ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
		try {
			CountDownLatch ready = new CountDownLatch(tasks.size());
			CountDownLatch go = new CountDownLatch(1);
			List<Future<Void>> futures = new ArrayList<>();
			for (Callable<Void> task : tasks) {
				futures.add(threads.submit(() -> {
					ready.countDown();
					go.await();
					return task.call();
				}));
			}
			ready.await();
			long start = System.nanoTime();
			go.countDown();
			for (Future<Void> future : futures) {
				future.get();
			}
			return System.nanoTime() - start;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("A benchmark thread failed: " + ex.getCause(), ex.getCause());
		}
		finally {
			threads.shutdownNow();
		}
	}

	/** Nearest-rank percentile of sorted values. */
	static long percentile(long[] sorted, double percent) {
		if (sorted.length == 0) {
			return 0;
		}
		int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
		return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
	}

	static long[] sorted(List<Long> values) {
		long[] array = values.stream().mapToLong(Long::longValue).toArray();
		Arrays.sort(array);
		return array;
	}

	/** Heap in use after a few full collections, in MB. */
	static double heapAfterGcMb() {
		for (int i = 0; i < 3; i++) {
			System.gc();
			sleep(200);
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
	}

	/**
	 * Waits for the latch of a run's jobs: at least 2 minutes, longer for many jobs (200
	 * a second); a run that does not finish by then fails, saying how many jobs are left.
	 */
	static void await(CountDownLatch latch, String what) {
		try {
			if (!latch.await(Math.max(120, latch.getCount() / 200), TimeUnit.SECONDS)) {
				throw new IllegalStateException(what + " did not finish: " + latch.getCount() + " jobs left");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
