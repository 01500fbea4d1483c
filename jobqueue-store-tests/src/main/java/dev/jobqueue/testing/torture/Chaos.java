package dev.jobqueue.testing.torture;

import java.util.ArrayList;
import java.util.Collections;
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
 * aims at the workers, in a random order, until one of them runs a job worth cutting off,
 * sends that one the signal, checks how it exited, and starts a new worker in its place;
 * until the run is done or the loop sent as many signals as it was asked to. It never
 * signals a worker it did not see busy: however loaded the machine, each signal is aimed,
 * and a run in which no worker was ever busy sends none (and its test fails on the count,
 * as it should).
 */
final class Chaos {

	private final Random random;

	private final List<ChildJvm> workers;

	private final WorkerJvms jvms;

	private final Signal signal;

	private final int signalsToSend;

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
	 * @param busy whether the worker of that id runs a job worth cutting off
	 */
	Chaos(String name, Random random, List<ChildJvm> workers, WorkerJvms jvms, Signal signal, int signalsToSend,
			Predicate<String> busy) {
		this.random = random;
		this.workers = workers;
		this.jvms = jvms;
		this.signal = signal;
		this.signalsToSend = signalsToSend;
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

	/**
	 * How many signals were sent to a worker just seen busy: all of them, since the loop
	 * only signals such workers.
	 */
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
				int victim = aim();
				if (victim < 0) {
					return;
				}
				ChildJvm process = this.workers.get(victim);
				if (!WorkerJvms.stop(process, this.signal)) {
					this.badExits.incrementAndGet();
				}
				this.signals.incrementAndGet();
				this.onBusyWorkers.incrementAndGet();
				this.workers.set(victim, this.jvms.launch());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The index of the first worker seen busy, trying the workers in a random order every
	 * 20 ms until the run is done; -1 then.
	 */
	private int aim() throws InterruptedException {
		List<Integer> order = new ArrayList<>();
		for (int i = 0; i < this.workers.size(); i++) {
			order.add(i);
		}
		while (!this.done.get()) {
			Collections.shuffle(order, this.random);
			for (int victim : order) {
				if (this.busy.test(this.jvms.workerId(this.workers.get(victim)))) {
					return victim;
				}
			}
			Thread.sleep(20);
		}
		return -1;
	}

}
