package dev.jobqueue.core;

import java.net.InetAddress;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Worker ids that say where a worker runs: {@code host:pid:random}, unique among
 * processes on one file.
 */
public final class WorkerIds {

	private WorkerIds() {
	}

	public static String newId() {
		return hostName() + ":" + ProcessHandle.current().pid() + ":"
				+ Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
	}

	public static String hostName() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			return "localhost";
		}
	}

}
