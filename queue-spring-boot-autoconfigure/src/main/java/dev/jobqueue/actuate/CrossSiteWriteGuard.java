package dev.jobqueue.actuate;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import dev.jobqueue.web.CrossSiteRequests;

/**
 * Refuses the {@code jobqueue} endpoint's writes (retry, cancel, pause, resume, bulk)
 * that a page of another site sent, at the operation itself: wherever the endpoint is
 * served (the main server or {@code management.server.port}, under any base path, path
 * mapping or servlet path), the operation runs inside the HTTP request that asked for it,
 * and that request's headers say where it comes from (see {@link CrossSiteRequests}).
 * Reads pass: a page of another site cannot read their answers; so does an operation
 * outside an HTTP request (JMX).
 */
public class CrossSiteWriteGuard implements OperationInvokerAdvisor {

	private static final EndpointId JOBQUEUE = EndpointId.of("jobqueue");

	static final int STATUS_FORBIDDEN = 403;

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!JOBQUEUE.equals(endpointId) || operationType == OperationType.READ) {
			return invoker;
		}
		return (context) -> {
			HttpServletRequest request = currentRequest();
			if (request != null && CrossSiteRequests.isCrossSite(request)) {
				return new WebEndpointResponse<>(
						new QueueEndpointWebExtension.Problem(STATUS_FORBIDDEN, CrossSiteRequests.REFUSAL),
						STATUS_FORBIDDEN);
			}
			return invoker.invoke(context);
		};
	}

	private static HttpServletRequest currentRequest() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		return (attributes instanceof ServletRequestAttributes servlet) ? servlet.getRequest() : null;
	}

}
