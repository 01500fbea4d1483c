package dev.jobqueue.sample;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import dev.jobqueue.JobQueue;

/**
 * Uploads a made-up image every few seconds, one in twenty with impossible dimensions and
 * one in four to publish (a chain: scan → thumbnail → publish, which an "unsafe" image
 * does not get through), and now and then asks for an archive (a long job with a progress
 * bar on the dashboard) or re-tags the latest images (a fan-out and its join).
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.demo-traffic.enabled")
public class DemoTraffic implements SmartLifecycle {

	private static final String[] NAMES = { "cat-on-sofa", "alps", "harbour", "cat-in-box", "forest", "city-night",
			"unsafe-meme" };

	private final ImageService service;

	private final JobQueue jobQueue;

	private final Duration interval;

	private ScheduledExecutorService scheduler;

	public DemoTraffic(ImageService service, JobQueue jobQueue,
			@Value("${sample.demo-traffic.interval:3s}") Duration interval) {
		this.service = service;
		this.jobQueue = jobQueue;
		this.interval = interval;
	}

	@Override
	public void start() {
		this.scheduler = Executors.newSingleThreadScheduledExecutor((task) -> new Thread(task, "demo-traffic"));
		this.scheduler.scheduleWithFixedDelay(this::uploadOne, 1000, this.interval.toMillis(), TimeUnit.MILLISECONDS);
	}

	private void uploadOne() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		String name = NAMES[random.nextInt(NAMES.length)];
		boolean broken = random.nextInt(20) == 0;
		this.service.upload(name, broken ? 0 : 640 + random.nextInt(2000), 480 + random.nextInt(1000),
				random.nextInt(4) == 0);
		if (random.nextInt(10) == 0) {
			this.jobQueue.enqueue("archive", new ImageJobs.ArchiveRequest(40 + random.nextInt(80)));
		}
		if (random.nextInt(40) == 0) {
			this.service.retag(20);
		}
	}

	@Override
	public void stop() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.scheduler = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.scheduler != null;
	}

}
