package dev.jobqueue.actuate;

import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

import dev.jobqueue.views.ValuePolicy;

/**
 * The {@link QueueEndpoint} over HTTP: answers with the status a web client expects and a
 * body that says why, and shows values according to
 * {@code management.endpoint.jobqueue.show-values} and the caller's roles, as Boot's
 * {@code env} web extension does.
 * <ul>
 * <li>404 for a job that does not exist.</li>
 * <li>409 Conflict for a retry or cancel of a job in a state that does not allow it
 * (retrying a succeeded job): the request is well-formed and may succeed later, so it is
 * not a 400.</li>
 * <li>400 for a request that is wrong whatever the queue holds: an unknown action or
 * status word, a page size out of range, a job id that is not a number, a GET of two path
 * segments other than {@code keys/{type}}.</li>
 * <li>200 otherwise; pausing a paused type or resuming an active one changes nothing and
 * says so ({@code applied: false}), as both are safe to repeat.</li>
 * </ul>
 */
@EndpointWebExtension(endpoint = QueueEndpoint.class)
public class QueueEndpointWebExtension {

	private static final int STATUS_CONFLICT = 409;

	private final QueueEndpoint endpoint;

	private final ValuePolicy values;

	/**
	 * @param showValues whether values are shown
	 * @param roles roles that may see values when {@code showValues} is
	 * {@link Show#WHEN_AUTHORIZED}; empty for any authenticated caller
	 */
	public QueueEndpointWebExtension(QueueEndpoint endpoint, Show showValues, Set<String> roles) {
		this.endpoint = Objects.requireNonNull(endpoint, "'endpoint' must not be null");
		this.values = ValuePolicy.of(
				ValuePolicy.Show.valueOf(Objects.requireNonNull(showValues, "'showValues' must not be null").name()),
				Objects.requireNonNull(roles, "'roles' must not be null"));
	}

	/**
	 * See {@link QueueEndpoint#queue()}: the database's location only to a caller who may
	 * see values.
	 */
	@ReadOperation
	public QueueReport queue(SecurityContext securityContext) {
		return this.endpoint.queue(values(securityContext));
	}

	/** See {@link QueueEndpoint#jobs}. */
	@ReadOperation
	public WebEndpointResponse<Object> jobs(SecurityContext securityContext, @Selector String idOrStatus,
			@Nullable String type, @Nullable String errorCode, @Nullable String key, @Nullable Long before,
			@Nullable Integer size, @Nullable String q, @Nullable Integer window) {
		Object answer;
		try {
			answer = this.endpoint.read(idOrStatus, type, errorCode, key, before, size, q, window,
					values(securityContext));
		}
		catch (InvalidEndpointRequestException ex) {
			return problem(WebEndpointResponse.STATUS_BAD_REQUEST, ex.getMessage());
		}
		if (answer == null) {
			return problem(WebEndpointResponse.STATUS_NOT_FOUND,
					"There is no job " + idOrStatus + " (finished jobs are deleted once their retention has passed)");
		}
		return new WebEndpointResponse<>(answer);
	}

	/** See {@link QueueEndpoint#keys}: 400 for a path or size that is not valid. */
	@ReadOperation
	public WebEndpointResponse<Object> keys(@Selector String keys, @Selector String type, @Nullable Integer size) {
		try {
			return new WebEndpointResponse<>(this.endpoint.readKeys(keys, type, size));
		}
		catch (InvalidEndpointRequestException ex) {
			return problem(WebEndpointResponse.STATUS_BAD_REQUEST, ex.getMessage());
		}
	}

	/**
	 * See {@link QueueEndpoint#bulk}: 200 (also when nothing matched, with
	 * {@code applied: 0}), 400 for an action or filter that is not valid, 409 when more
	 * jobs match than the bound and {@code confirm} was not given.
	 */
	@WriteOperation
	public WebEndpointResponse<Object> bulk(@Selector String action, @Nullable String type, @Nullable String status,
			@Nullable String errorCode, @Nullable String key, @Nullable String enqueuedFrom,
			@Nullable String enqueuedTo, @Nullable String finishedFrom, @Nullable String finishedTo,
			@Nullable Boolean dryRun, @Nullable Boolean confirm) {
		QueueEndpointActions.BulkApplied applied;
		try {
			applied = this.endpoint.bulk(action, new QueueEndpointActions.BulkFilter(type, status, errorCode, key,
					enqueuedFrom, enqueuedTo, finishedFrom, finishedTo), dryRun, confirm);
		}
		catch (InvalidEndpointRequestException ex) {
			return problem(WebEndpointResponse.STATUS_BAD_REQUEST, ex.getMessage());
		}
		return new WebEndpointResponse<>(applied.result(),
				(applied.outcome() == QueueEndpointActions.Outcome.WRONG_STATE) ? STATUS_CONFLICT
						: WebEndpointResponse.STATUS_OK);
	}

	/** See {@link QueueEndpoint#act}. */
	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String target, @Selector String action) {
		QueueEndpointActions.Applied applied;
		try {
			applied = this.endpoint.apply(target, action);
		}
		catch (InvalidEndpointRequestException ex) {
			return problem(WebEndpointResponse.STATUS_BAD_REQUEST, ex.getMessage());
		}
		int status = switch (applied.outcome()) {
			case APPLIED, UNCHANGED -> WebEndpointResponse.STATUS_OK;
			case NO_SUCH_JOB -> WebEndpointResponse.STATUS_NOT_FOUND;
			case WRONG_STATE -> STATUS_CONFLICT;
		};
		return new WebEndpointResponse<>(applied.result(), status);
	}

	/**
	 * The value policy settled for the caller. Boot matches a role as its own endpoints
	 * do (the request's roles and, with Spring Security, the caller's authorities).
	 */
	private ValuePolicy values(SecurityContext securityContext) {
		return this.values.forCaller(securityContext.getPrincipal() != null,
				(role) -> Show.WHEN_AUTHORIZED.isShown(securityContext, Set.of(role)));
	}

	private static WebEndpointResponse<Object> problem(int status, String message) {
		return new WebEndpointResponse<>(new Problem(status, message), status);
	}

	/**
	 * Why a request was refused.
	 *
	 * @param status the HTTP status
	 * @param message what was wrong and what to do instead
	 */
	public record Problem(int status, String message) {

	}

}
