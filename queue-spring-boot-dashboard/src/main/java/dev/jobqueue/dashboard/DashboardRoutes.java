package dev.jobqueue.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.CacheControl;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.function.RequestPredicate;
import org.springframework.web.servlet.function.RequestPredicates;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import dev.jobqueue.BulkAction;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.dashboard.QueueDashboard.JobAction;
import dev.jobqueue.dashboard.QueueDashboard.Page;
import dev.jobqueue.views.JobQuery;
import dev.jobqueue.views.JobSearch;
import dev.jobqueue.web.CrossSiteRequests;

/**
 * The dashboard's URLs under its path, as Spring MVC functional routes: they go through
 * the application's filter chain like any other request, so Spring Security's rules for
 * the path (and its CSRF check of the actions' POSTs) apply. Bad input is answered with a
 * page in words: 400 for a malformed filter or page token, 403 for an action on a
 * read-only dashboard or one another site's page posted (with or without Spring
 * Security's CSRF token, see {@link CrossSiteRequests}), 404 for an unknown job, 409 for
 * an action on a job that moved on.
 *
 * <pre>
 * GET  {path}                          overview (?window=day for the chart of the last day)
 * GET  {path}/jobs?status=&amp;type=&amp;error=&amp;before=   jobs, newest first; before is the page token
 * GET  {path}/jobs/{id}                one job
 * GET  {path}/jobs/{id}/retry|cancel|cancel-chain   confirmation      POST: the action
 * GET  {path}/types/pause|resume?type= confirmation      POST: the action
 * GET  {path}/bulk/retry|cancel|delete?status=&amp;type=&amp;error=   confirmation with the count   POST: the action
 * GET  {path}/search?q=                jobs found by id, error code, dedup key or text
 * GET  {path}/keys?type=               a type's blocked and busiest keys
 * </pre>
 */
public final class DashboardRoutes {

	private static final Logger logger = LoggerFactory.getLogger(QueueDashboard.class);

	private static final MediaType HTML = new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8);

	private static final boolean SECURITY_PRESENT = ClassUtils
		.isPresent("org.springframework.security.web.csrf.CsrfToken", DashboardRoutes.class.getClassLoader());

	private final QueueDashboard dashboard;

	private final DashboardSettings settings;

	private final Map<String, Asset> assets;

	public DashboardRoutes(QueueDashboard dashboard, DashboardSettings settings) {
		this.dashboard = Objects.requireNonNull(dashboard, "'dashboard' must not be null");
		this.settings = Objects.requireNonNull(settings, "'settings' must not be null");
		this.assets = Map.of("dashboard.css", Asset.load("dashboard.css", "text/css"), "dashboard.js",
				Asset.load("dashboard.js", "text/javascript"));
	}

	/** The dashboard's routes, to be declared as a bean. */
	public RouterFunction<ServerResponse> routes() {
		String root = this.settings.base();
		RouterFunctions.Builder routes = RouterFunctions.route().route(page(root + "/"), this::overview);
		if (!root.isEmpty()) {
			routes.route(page(root), this::overview);
		}
		routes.route(page(root + "/assets/{name}"), this::asset)
			.route(page(root + "/jobs"), this::jobs)
			.route(page(root + "/jobs/{id}"), this::job)
			.route(page(root + "/jobs/{id}/{action}"), (request) -> jobAction(request, false))
			.POST(root + "/jobs/{id}/{action}", (request) -> jobAction(request, true))
			.route(page(root + "/types/{action}"), (request) -> typeAction(request, false))
			.POST(root + "/types/{action}", (request) -> typeAction(request, true))
			.route(page(root + "/bulk/{action}"), (request) -> bulkAction(request, false))
			.POST(root + "/bulk/{action}", (request) -> bulkAction(request, true))
			.route(page(root + "/search"), this::search)
			.route(page(root + "/keys"), this::keys)
			.route(RequestPredicates.method(HttpMethod.OPTIONS)
				.and(RequestPredicates.path(root + "/jobs/{id}/{action}")
					.or(RequestPredicates.path(root + "/types/{action}"))
					.or(RequestPredicates.path(root + "/bulk/{action}"))),
					(request) -> allow(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.OPTIONS))
			.route(RequestPredicates.method(HttpMethod.OPTIONS)
				.and(RequestPredicates.path(root + "/**").or(RequestPredicates.path(root.isEmpty() ? "/" : root))),
					(request) -> allow(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS));
		if (!root.isEmpty()) {
			// Anything else under the dashboard's path is a page in words; at "/" the
			// application's own 404 stays.
			routes.route(RequestPredicates.path(root + "/**"), this::notFound);
		}
		// The database is down (or the store failed): a page in words, not Boot's JSON
		// 500.
		routes.onError(RuntimeException.class, this::unavailable);
		return routes.build();
	}

	/**
	 * A page's address, for GET and for HEAD (answered as GET without its body, which the
	 * servlet drops): a monitor or a link checker asks with HEAD.
	 */
	private static RequestPredicate page(String pattern) {
		return RequestPredicates.methods(HttpMethod.GET, HttpMethod.HEAD).and(RequestPredicates.path(pattern));
	}

	/** The answer to OPTIONS: which methods the address takes. */
	private static ServerResponse allow(HttpMethod... methods) {
		return ServerResponse.ok().allow(methods).build();
	}

	private ServerResponse overview(ServerRequest request) {
		Viewer viewer = viewer(request);
		Optional<String> window = request.param("window");
		if (window.isPresent() && !window.get().equals("day") && !window.get().equals("hour")) {
			return badRequest(viewer, "Unknown window '" + window.get() + "': use window=hour or window=day.", "/");
		}
		return respond(this.dashboard.overview(viewer, window.filter("day"::equals).isPresent()));
	}

	private ServerResponse search(ServerRequest request) {
		Viewer viewer = viewer(request);
		String text = blankToNull(request.param("q").orElse(null));
		if (text != null && text.length() > JobSearch.MAX_TEXT) {
			return badRequest(viewer, "Search for at most " + JobSearch.MAX_TEXT + " characters: a job id, an error "
					+ "code, a dedup key or a piece of an error detail or payload.", "/search");
		}
		return respond(this.dashboard.search(viewer, text));
	}

	private ServerResponse keys(ServerRequest request) {
		Viewer viewer = viewer(request);
		String type = blankToNull(request.param("type").orElse(null));
		if (type == null) {
			return badRequest(viewer, "Say whose keys to show: ?type=<job type>.", "/");
		}
		String problem = EnqueueLimits.typeProblem(type);
		if (problem != null) {
			return badRequest(viewer, "Cannot show the keys: " + problem + ".", "/");
		}
		return respond(this.dashboard.keys(viewer, type));
	}

	private ServerResponse bulkAction(ServerRequest request, boolean post) {
		Viewer viewer = viewer(request);
		BulkAction action;
		try {
			action = BulkAction.of(request.pathVariable("action"));
		}
		catch (JobQueueException ex) {
			return notFound(viewer);
		}
		if (viewer.readOnly()) {
			return readOnly(viewer);
		}
		Object query = jobQuery(request, viewer);
		if (query instanceof ServerResponse refused) {
			return refused;
		}
		JobQuery filter = (JobQuery) query;
		if (BulkPages.filter(filter).matchesAll()) {
			return badRequest(viewer, "Say which jobs to " + action.word() + ": filter the list by status, type, "
					+ "error code or key first, then use its \"" + BulkPages.label(action) + " all matching\" link.",
					"/jobs");
		}
		try {
			action.check(BulkPages.filter(filter));
		}
		catch (JobQueueException ex) {
			return badRequest(viewer, ex.getMessage() + ".", "/jobs");
		}
		if (post && isCrossSite(request)) {
			return crossSite(viewer);
		}
		return respond(post ? this.dashboard.bulk(viewer, action, filter)
				: this.dashboard.confirmBulk(viewer, action, filter));
	}

	private ServerResponse jobs(ServerRequest request) {
		Viewer viewer = viewer(request);
		Object query = jobQuery(request, viewer);
		if (query instanceof ServerResponse refused) {
			return refused;
		}
		return respond(this.dashboard.jobs(viewer, (JobQuery) query));
	}

	/**
	 * The list filter of a request's parameters ({@code status}, {@code type},
	 * {@code error}, {@code key}, {@code before}), or the page that refuses it.
	 */
	private Object jobQuery(ServerRequest request, Viewer viewer) {
		String statusText = blankToNull(request.param("status").orElse(null));
		JobStatus status = null;
		if (statusText != null) {
			status = parseStatus(statusText);
			if (status == null) {
				return badRequest(viewer, "Unknown status '" + statusText + "': use waiting, pending, running, "
						+ "succeeded, failed or cancelled, or leave it empty for all jobs.", "/jobs");
			}
		}
		String beforeText = blankToNull(request.param("before").orElse(null));
		Long before = null;
		if (beforeText != null) {
			before = parsePositive(beforeText);
			if (before == null) {
				return badRequest(viewer, "The page token '" + beforeText + "' is not one this dashboard wrote: "
						+ "follow the \"Older jobs\" link, or start from the first page.", "/jobs");
			}
		}
		String type = blankToNull(request.param("type").orElse(null));
		String error = blankToNull(request.param("error").orElse(null));
		String key = blankToNull(request.param("key").orElse(null));
		String tooLong = EnqueueLimits.filterProblem(type, error, key);
		if (tooLong != null) {
			return badRequest(viewer, tooLong + ".", "/jobs");
		}
		return new JobQuery(status, type, error, key, before, QueueDashboard.PAGE_SIZE);
	}

	private ServerResponse job(ServerRequest request) {
		Viewer viewer = viewer(request);
		Long id = parsePositive(request.pathVariable("id"));
		if (id == null) {
			return notFound(viewer);
		}
		JobAction done = request.param("done").flatMap(JobAction::of).orElse(null);
		return respond(this.dashboard.job(viewer, id, done));
	}

	private ServerResponse jobAction(ServerRequest request, boolean post) {
		Viewer viewer = viewer(request);
		Long id = parsePositive(request.pathVariable("id"));
		Optional<JobAction> action = JobAction.of(request.pathVariable("action"));
		if (id == null || action.isEmpty()) {
			return notFound(viewer);
		}
		if (viewer.readOnly()) {
			return readOnly(viewer);
		}
		if (post && isCrossSite(request)) {
			return crossSite(viewer);
		}
		return respond(post ? this.dashboard.jobAction(viewer, id, action.get())
				: this.dashboard.confirmJobAction(viewer, id, action.get()));
	}

	private ServerResponse typeAction(ServerRequest request, boolean post) {
		Viewer viewer = viewer(request);
		String action = request.pathVariable("action");
		if (!action.equals("pause") && !action.equals("resume")) {
			return notFound(viewer);
		}
		if (viewer.readOnly()) {
			return readOnly(viewer);
		}
		String type = request.param("type").orElse(null);
		if (type == null || type.isEmpty()) {
			return badRequest(viewer, "Say which job type to " + action + ": ?type=<job type>.", "/");
		}
		String problem = EnqueueLimits.typeProblem(type);
		if (problem != null) {
			return badRequest(viewer, "Cannot " + action + ": " + problem + ".", "/");
		}
		if (post && isCrossSite(request)) {
			return crossSite(viewer);
		}
		boolean pause = action.equals("pause");
		return respond(post ? this.dashboard.typeAction(viewer, type, pause)
				: this.dashboard.confirmTypeAction(viewer, type, pause));
	}

	private ServerResponse asset(ServerRequest request) {
		Asset asset = this.assets.get(request.pathVariable("name"));
		if (asset == null) {
			return notFound(viewer(request));
		}
		return ServerResponse.ok()
			.contentType(asset.type())
			.cacheControl(CacheControl.noCache())
			.header("X-Content-Type-Options", "nosniff")
			.body(asset.content());
	}

	private ServerResponse notFound(ServerRequest request) {
		return notFound(viewer(request));
	}

	private ServerResponse notFound(Viewer viewer) {
		String title = "No such page";
		return respond(this.dashboard.page(viewer, 404, title,
				JobPages.message(viewer, title,
						"The dashboard has no page at this address. Jobs are at " + viewer.url("/jobs/<id>") + ".", "/",
						"Back to the overview")));
	}

	private ServerResponse badRequest(Viewer viewer, String text, String back) {
		String title = "That request cannot be answered";
		return respond(
				this.dashboard.page(viewer, 400, title, JobPages.message(viewer, title, text, back, "Start again")));
	}

	private ServerResponse readOnly(Viewer viewer) {
		String title = "This dashboard is read-only";
		return respond(this.dashboard.page(viewer, 403, title, JobPages.message(viewer, title,
				"Retry, cancel, cancel chain, pause, resume and bulk actions are turned off. Set jobqueue.dashboard.read-only=false (and "
						+ "protect the dashboard's path) to allow them. Nothing was changed.",
				"/", "Back to the overview")));
	}

	/**
	 * A POST another site's page made: the browser would send this user's cookies or
	 * Basic login with it. Asked whether or not a CSRF token guards the action too:
	 * Spring Security offers a token on every request, also on paths whose check the
	 * application turned off, so its presence proves nothing was checked.
	 */
	private static boolean isCrossSite(ServerRequest request) {
		return CrossSiteRequests.isCrossSite(request.servletRequest());
	}

	private ServerResponse crossSite(Viewer viewer) {
		String title = "This request came from another site";
		return respond(this.dashboard.page(viewer, 403, title, JobPages.message(viewer, title,
				"A page of another site (or another port) asked this dashboard to act, and the browser would have sent "
						+ "your login with it. Nothing was changed. Use the dashboard's own buttons; to act from "
						+ "elsewhere, use the jobqueue actuator endpoint from a script.",
				"/", "Back to the overview")));
	}

	private ServerResponse unavailable(Throwable failure, ServerRequest request) {
		logger.warn("jobqueue dashboard: {} {} failed: {}", request.method(), request.path(), failure.toString());
		Viewer viewer = viewer(request);
		String title = "The queue cannot be read right now";
		// The store's message may name the file or server: only for who may see values.
		String reason = viewer.showValues() ? " It said: " + failure.getMessage() : "";
		return respond(this.dashboard.page(viewer, 503, title, JobPages.message(viewer, title,
				"The queue's database did not answer, so nothing could be shown or changed." + reason
						+ " The application's log and /actuator/health/jobqueue say more; this page works again "
						+ "once the database does.",
				"/", "Try the overview again")));
	}

	private static ServerResponse respond(Page page) {
		if (page.redirect() != null) {
			return ServerResponse.seeOther(URI.create(page.redirect())).build();
		}
		return ServerResponse.status(page.status())
			.contentType(HTML)
			.cacheControl(CacheControl.noStore())
			.header("X-Content-Type-Options", "nosniff")
			.header("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'self'")
			.body(page.html());
	}

	private Viewer viewer(ServerRequest request) {
		HttpServletRequest servlet = request.servletRequest();
		String csrfName = null;
		String csrfToken = null;
		if (SECURITY_PRESENT) {
			String[] csrf = CsrfField.of(servlet);
			if (csrf != null) {
				csrfName = csrf[0];
				csrfToken = csrf[1];
			}
		}
		return new Viewer(this.settings.base(), this.settings.values().shown(servlet), this.settings.readOnly(),
				csrfName, csrfToken, this.settings.refreshInterval().toMillis());
	}

	private static JobStatus parseStatus(String value) {
		for (JobStatus status : JobStatus.values()) {
			if (status.dbValue().equals(value)) {
				return status;
			}
		}
		return null;
	}

	private static Long parsePositive(String value) {
		if (value.isEmpty() || value.length() > 18 || !value.chars().allMatch((c) -> c >= '0' && c <= '9')) {
			return null;
		}
		long parsed = Long.parseLong(value);
		return (parsed > 0) ? parsed : null;
	}

	private static String blankToNull(String value) {
		return (value == null || value.isBlank()) ? null : value.trim();
	}

	private record Asset(String content, MediaType type) {

		static Asset load(String name, String type) {
			try (InputStream in = DashboardRoutes.class.getResourceAsStream(name)) {
				if (in == null) {
					throw new IllegalStateException("Dashboard asset " + name + " is missing from the jar");
				}
				return new Asset(new String(in.readAllBytes(), StandardCharsets.UTF_8),
						new MediaType(MediaType.parseMediaType(type), StandardCharsets.UTF_8));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
