package dev.jobqueue.sample;

import java.util.List;
import java.util.Set;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.stereotype.Component;

import dev.jobqueue.Job;

/**
 * The sample's own job API shows payloads, results, error details and dedup keys as the
 * {@code jobqueue} endpoint and the dashboard do: by
 * {@code management.endpoint.jobqueue.show-values} and {@code roles}, so a job's values
 * are not one URL away from someone the endpoint would not show them to.
 */
@Component
class JobValues {

	static final String HIDDEN = "hidden (management.endpoint.jobqueue.show-values)";

	private final String showValues;

	private final Set<String> roles;

	JobValues(@Value("${management.endpoint.jobqueue.show-values:never}") String showValues,
			@Value("${management.endpoint.jobqueue.roles:}") Set<String> roles) {
		this.showValues = showValues.trim().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
		this.roles = roles;
	}

	boolean shown(Authentication caller) {
		return switch (this.showValues) {
			case "always" -> true;
			case "when-authorized" -> caller != null && caller.isAuthenticated()
					&& (this.roles.isEmpty() || caller.getAuthorities()
						.stream()
						.map(GrantedAuthority::getAuthority)
						.anyMatch((authority) -> this.roles.contains(authority)
								|| this.roles.contains(authority.replaceFirst("^ROLE_", ""))));
			default -> false;
		};
	}

	Job view(Job job, Authentication caller) {
		return shown(caller) ? job : hidden(job);
	}

	List<Job> view(List<Job> jobs, Authentication caller) {
		return shown(caller) ? jobs : jobs.stream().map(JobValues::hidden).toList();
	}

	private static Job hidden(Job job) {
		return new Job(job.id(), job.type(), job.status(), job.priority(), HIDDEN,
				(job.result() != null) ? HIDDEN : null, (job.dedupKey() != null) ? HIDDEN : null, job.attempts(),
				job.maxAttempts(), job.runAt(), job.createdAt(), job.startedAt(), job.finishedAt(), job.workerId(),
				job.heartbeatAt(), job.leaseUntil(), job.errorCode(), (job.errorDetail() != null) ? HIDDEN : null,
				job.cancelRequested(), job.chainId(), job.chainIndex(), job.unfinishedDependencies(), job.key());
	}

}
