package dev.jobqueue.testing.torture;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import dev.jobqueue.testing.ChildJvm;
import dev.jobqueue.testing.torture.WorkerJvms.Signal;

/**
 * The chaos loop of a torture run, in a thread of its own: every two to five seconds it
 * picks a random worker, waits a while for it to run a job worth cutting off, sends it
 * the signal, checks how it exited, and starts a new worker in its place; until the run
 * is done or the loop sent as many signals as it was asked to.
 */
final class Chaos {

	private final Random random;

	private final List<ChildJvm> workers;

	private final WorkerJvms jvms;

	private final Signal signal;

	private final int signalsToSend;

	private final Duration aim;

	private final Predicate<String> busy;

	private final AtomicBoolean done = new AtomicBoolean();

	private final AtomicInteger signals = new AtomicInteger();

	private final AtomicInteger onBusyWorkers = new AtomicInteger();

	private final AtomicInteger badExits = new AtomicInteger();

	private final Thread thread;

	/**
	 * @param workers the workers running now, in which the loop puts each new one in
	 * place of the one it signalled
	 * @param signalsToSend how many signals to send at most; -1 to go on until the run is
	 * done
	 * @param aim how long to wait for a worker to be busy before signalling it anyway
	 * @param busy whether the worker of that id runs a job worth cutting off
	 */
	Chaos(String name, Random random, List<ChildJvm> workers, WorkerJvms jvms, Signal signal, int signalsToSend,
			Duration aim, Predicate<String> busy) {
		this.random = random;
		this.workers = workers;
		this.jvms = jvms;
		this.signal = signal;
		this.signalsToSend = signalsToSend;
		this.aim = aim;
		this.busy = busy;
		this.thread = new Thread(this::run, name);
	}

	Chaos start() {
		this.thread.start();
		return this;
	}

	/** Ends the loop and waits for the signal in flight, if any. */
	void stop() throws InterruptedException {
		this.done.set(true);
		this.thread.join();
	}

	/** How many signals were sent. */
	int signals() {
		return this.signals.get();
	}

	/** How many signals hit a worker while it was busy. */
	int onBusyWorkers() {
		return this.onBusyWorkers.get();
	}

	/** How many signalled workers did not exit as the signal should make them. */
	int badExits() {
		return this.badExits.get();
	}

	private void run() {
		try {
			while (!this.done.get() && (this.signalsToSend < 0 || this.signals.get() < this.signalsToSend)) {
				long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_000 + this.random.nextInt(3_000));
				while (!this.done.get() && System.nanoTime() - until < 0) {
					Thread.sleep(50);
				}
				if (this.done.get()) {
					return;
				}
				int victim = this.random.nextInt(this.workers.size());
				ChildJvm process = this.workers.get(victim);
				String workerId = this.jvms.workerId(process);
				long aimUntil = System.nanoTime() + this.aim.toNanos();
				boolean busy = false;
				while (!busy && !this.done.get() && System.nanoTime() - aimUntil < 0) {
					busy = this.busy.test(workerId);
					if (!busy) {
						Thread.sleep(20);
					}
				}
				if (!WorkerJvms.stop(process, this.signal)) {
					this.badExits.incrementAndGet();
				}
				this.signals.incrementAndGet();
				if (busy) {
					this.onBusyWorkers.incrementAndGet();
				}
				this.workers.set(victim, this.jvms.launch());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
