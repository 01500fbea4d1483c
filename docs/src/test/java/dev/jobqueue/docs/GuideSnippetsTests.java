package dev.jobqueue.docs;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.test.JobQueueTester;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java snippets of the README and the guide, read from the Markdown as written, each
 * put into a small class of its own (imports, the fields and types the snippet takes for
 * granted, and for the lines that enqueue, a method that runs them), and compiled
 * together against the published modules. A new snippet fails the build until it has its
 * class here. The snippets with handlers then run, together in one application on SQLite
 * (their job types differ), and each test checks what the text around its snippet says
 * they do. The dashboard's security configuration and the testing page's test class are
 * compiled only. The README's snippet also runs in a new Maven project, built as a reader
 * would, in the readme-app integration test.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GuideSnippetsTests {

	private static final Pattern JAVA = Pattern.compile("^( *)```java\\n(.*?)^ *```",
			Pattern.DOTALL | Pattern.MULTILINE);

	private static final String IMPORTS = """
			import java.time.Duration;
			import java.util.*;
			import java.util.concurrent.*;
			import dev.jobqueue.*;
			import dev.jobqueue.docs.SnippetCalls;
			import org.springframework.beans.factory.annotation.Autowired;
			import org.springframework.boot.autoconfigure.SpringBootApplication;
			import org.springframework.context.ApplicationContext;
			import org.springframework.context.annotation.Bean;
			import org.springframework.stereotype.Component;
			""";

	/**
	 * Where each snippet goes: page and index of its Java block, to the class it is put
	 * in.
	 */
	private static final Map<String, Harness> HARNESSES = new LinkedHashMap<>();

	static {
		HARNESSES.put("README.md#0", Harness.run("readme", """
				%s
				""", """
				public class Scenario implements java.util.function.Function<ApplicationContext, Long> {
					public Long apply(ApplicationContext context) {
						JobQueue jobQueue = context.getBean(JobQueue.class);
						%s
						return id;
					}
				}
				"""));
		HARNESSES.put("docs/guide/chains.md#0",
				Harness.run("chains",
						"""
								record Upload(long id) {}
								record Scan(long fileId) {}
								record Publish(long fileId) {}
								@Component class Storage { void store(Upload file) { SnippetCalls.record("storage.store", file.id()); } }
								@Component class VirusScanner { boolean isClean(long fileId) { return true; } }
								@Component class Cdn {
									String publish(long fileId) { SnippetCalls.record("cdn.publish", fileId); return "https://cdn.example/" + fileId; }
								}
								@Component class UploadJobs {
									@Autowired Storage storage;
									@Autowired VirusScanner virusScanner;
									@Autowired Cdn cdn;
									%s
								}
								""",
						"""
								public class Scenario implements java.util.function.Function<ApplicationContext, Long> {
									public Long apply(ApplicationContext context) {
										JobQueue jobQueue = context.getBean(JobQueue.class);
										return jobQueue.enqueue("upload", new Upload(7));
									}
								}
								"""));
		HARNESSES.put("docs/guide/chains.md#1", Harness.run("fanout", """
				@Component class ImportJobs {
					@JobHandler("import-row") void row(String line) { SnippetCalls.record("import-row", line); }
					@JobHandler("import-summary") String summary(long fileId) { return "file " + fileId; }
				}
				""", """
				public class Scenario implements java.util.function.Function<ApplicationContext, Long> {
					public Long apply(ApplicationContext context) {
						JobQueue jobQueue = context.getBean(JobQueue.class);
						List<String> lines = List.of("a,1", "b,2", "c,3");
						long fileId = 12;
						%s
						return fanOut.joinId();
					}
				}
				"""));
		HARNESSES.put("docs/guide/dashboard.md#0", Harness.compile("dashboard", """
				import org.springframework.security.config.Customizer;
				import org.springframework.security.config.annotation.web.builders.HttpSecurity;
				import org.springframework.security.web.SecurityFilterChain;
				@org.springframework.context.annotation.Configuration
				class SecurityConfiguration {
					%s
				}
				"""));
		HARNESSES.put("docs/guide/durable-steps.md#0", Harness.run("steps",
				"""
						import org.springframework.jdbc.core.JdbcTemplate;
						record Order(long id, String card, long total, String email) {}
						record Receipt(String id) {}
						@Component class Payments {
							Receipt charge(String card, long total, String idempotencyKey) {
								SnippetCalls.record("payments.charge", idempotencyKey);
								return new Receipt("r-" + idempotencyKey);
							}
						}
						@Component class Mail {
							void sendReceipt(String email, Receipt receipt) { SnippetCalls.record("mail.sendReceipt", receipt.id()); }
						}
						@Component class Checkout {
							@Autowired Payments payments;
							@Autowired Mail mail;
							@Autowired JdbcTemplate jdbc;
							%s
						}
						""",
				"""
						public class Scenario implements java.util.function.Function<ApplicationContext, Long> {
							public Long apply(ApplicationContext context) {
								return context.getBean(JobQueue.class).enqueue("checkout", new Order(5, "4242", 1999, "a@example.com"));
							}
						}
						"""));
		HARNESSES.put("docs/guide/flow-control.md#0", Harness.run("flow", """
				%s
				@Component class PaymentProvider {
					String charge(String customerId, long cents) {
						SnippetCalls.record("provider.charge", customerId);
						return "receipt-" + customerId;
					}
				}
				""", """
				public class Scenario implements java.util.function.Function<ApplicationContext, Long> {
					public Long apply(ApplicationContext context) {
						JobQueue jobQueue = context.getBean(JobQueue.class);
						String customerId = "customer-42";
						return %s
					}
				}
				"""));
		HARNESSES.put("docs/guide/schedules.md#0", Harness.run("schedules", """
				record Report(int images) {}
				@Component class Reports { Report lastHour() { return new Report(3); } }
				@Component class ReportJobs {
					@Autowired Reports reports;
					%s
				}
				""", null));
		HARNESSES.put("docs/guide/testing.md#0", Harness.compile("testing",
				"""
						%s
						record Upload(List<Long> jobIds) {}
						@Component class ImageService { Upload upload(String name, int width, int height) { return new Upload(List.of()); } }
						"""));
	}

	/** The snippets' classes, compiled once for every test of the class. */
	private static Compiled compiled;

	/**
	 * One application for every snippet that runs: its handlers have types of their own,
	 * so they share a context, a SQLite file and the test's clock.
	 */
	private static ConfigurableApplicationContext application;

	@TempDir
	static Path work;

	@BeforeAll
	static void compileTheSnippetsAndStartAnApplicationWithThem() throws Exception {
		compiled = compile(work, readSnippets());
		if (compiled.errors().isEmpty()) {
			application = start(compiled, work.resolve("app.db"));
		}
	}

	@AfterAll
	static void stopTheApplication() throws IOException {
		if (application != null) {
			application.close();
		}
		if (compiled != null) {
			compiled.loader().close();
		}
	}

	@Test
	@Order(0)
	void everyJavaSnippetOfTheManualCompiles() {
		assertThat(compiled.snippets().keySet())
			.as("the Java snippets of the manual, each with its class in GuideSnippetsTests")
			.containsExactlyInAnyOrderElementsOf(HARNESSES.keySet());
		assertThat(compiled.errors()).as("the manual's snippets compile").isEmpty();
	}

	/** README, Getting started: the handler's return value is the job's result. */
	@Test
	@Order(1)
	void theReadmesJobsRunAndTheDelayedOneWaitsFiveMinutes() {
		long id = scenario("readme");
		List<Job> firstRound = tester().runDueJobs();
		assertThat(queue().result(id, String.class)).contains("thumbs/42.jpg");
		assertThat(firstRound).extracting(Job::result).doesNotContain("\"thumbs/43.jpg\"");
		tester().advanceClock(Duration.ofMinutes(5));
		assertThat(tester().runDueJobs()).filteredOn((job) -> "\"thumbs/43.jpg\"".equals(job.result()))
			.singleElement()
			.extracting(Job::priority)
			.isEqualTo(10);
	}

	/** Chains: each step creates the next with its success; the last one's result. */
	@Test
	@Order(2)
	void theUploadChainScansAndPublishes() {
		long upload = scenario("chains");
		tester().runDueJobs();
		List<Job> chain = queue().findChain(upload);
		assertThat(chain).extracting(Job::type).containsExactly("upload", "scan", "publish");
		assertThat(chain).extracting(Job::status).containsOnly(JobStatus.SUCCEEDED);
		assertThat(chain.get(2).priority()).isEqualTo(5);
		assertThat(queue().result(chain.get(2).id(), String.class)).contains("https://cdn.example/7");
		assertThat(SnippetCalls.of("cdn.publish")).containsExactly(7L);
	}

	/** Chains, fan-out: the summary waits for every row. */
	@Test
	@Order(3)
	void theFanOutsSummaryWaitsForEveryRow() {
		long summary = scenario("fanout");
		assertThat(queue().find(summary)).map(Job::status).contains(JobStatus.WAITING);
		tester().runDueJobs();
		assertThat(SnippetCalls.of("import-row")).containsExactlyInAnyOrder("a,1", "b,2", "c,3");
		assertThat(queue().find(summary)).map(Job::status).contains(JobStatus.SUCCEEDED);
		assertThat(queue().result(summary, String.class)).contains("file 12");
	}

	/**
	 * Durable steps: the ledger's database is down (its table is missing), the job is
	 * retried, and the card is not charged again nor a second mail sent.
	 */
	@Test
	@Order(4)
	void aCheckoutRetriedAtTheLedgerChargesTheCardOnce() {
		long checkout = scenario("steps");
		tester().runDueJobs();
		assertThat(queue().find(checkout)).map(Job::status).contains(JobStatus.PENDING);
		JdbcTemplate jdbc = application.getBean(JdbcTemplate.class);
		jdbc.execute("CREATE TABLE ledger (order_id INTEGER, receipt_id TEXT, amount INTEGER)");
		tester().advanceClock(Duration.ofMinutes(1));
		tester().runDueJobs();

		String receipt = "r-jobqueue-" + checkout + "-charge";
		assertThat(queue().find(checkout)).map(Job::status).contains(JobStatus.SUCCEEDED);
		assertThat(queue().result(checkout, String.class)).contains(receipt);
		assertThat(SnippetCalls.of("payments.charge")).containsExactly("jobqueue-" + checkout + "-charge");
		assertThat(SnippetCalls.of("mail.sendReceipt")).containsExactly(receipt);
		assertThat(tester().stepsReplayed(checkout)).containsExactly("charge", "send-receipt");
		assertThat(jdbc.queryForList("SELECT receipt_id FROM ledger WHERE order_id = 5", String.class))
			.containsExactly(receipt);
	}

	/** Flow control: the job carries its customer's key; the handler's result. */
	@Test
	@Order(5)
	void aChargeRunsUnderItsCustomersKey() {
		long charge = scenario("flow");
		tester().runDueJobs();
		assertThat(queue().find(charge)).map(Job::key).contains("customer-42");
		assertThat(queue().result(charge, String.class)).contains("receipt-customer-42");
		assertThat(SnippetCalls.of("provider.charge")).containsExactly("customer-42");
	}

	/**
	 * Schedules: each hour of Paris's clock enqueues one report, whose result is kept.
	 */
	@Test
	@Order(6)
	void theReportIsEnqueuedOnTheHour() {
		ZonedDateTime nextHour = tester().now()
			.atZone(ZoneId.of("Europe/Paris"))
			.truncatedTo(ChronoUnit.HOURS)
			.plusHours(1);
		assertThat(tester().runDueJobs()).extracting(Job::type).doesNotContain("images-report");
		tester().advanceClockTo(nextHour.toInstant().plusSeconds(1));
		assertThat(tester().runDueJobs()).filteredOn((job) -> job.type().equals("images-report"))
			.singleElement()
			.satisfies((job) -> assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED))
			.extracting(Job::result)
			.isEqualTo("{\"images\":3}");
	}

	private static JobQueue queue() {
		return application.getBean(JobQueue.class);
	}

	private static JobQueueTester tester() {
		return application.getBean(JobQueueTester.class);
	}

	/** Runs a snippet's scenario (its enqueue lines) and returns the id it gives. */
	@SuppressWarnings("unchecked")
	private static long scenario(String name) {
		assertThat(compiled.errors()).as("the manual's snippets compile").isEmpty();
		try {
			Class<?> scenario = compiled.loader().loadClass("snippets." + name + ".Scenario");
			return ((Function<ApplicationContext, Long>) scenario.getConstructor().newInstance()).apply(application);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * An application of the snippets that run, on a SQLite file its DataSource and the
	 * queue share (as the durable steps' ledger needs), with the jobs run on the test
	 * thread by {@link JobQueueTester} and the queue's clock the test's.
	 */
	private static ConfigurableApplicationContext start(Compiled compiled, Path database) throws Exception {
		Thread thread = Thread.currentThread();
		ClassLoader previous = thread.getContextClassLoader();
		thread.setContextClassLoader(compiled.loader());
		try {
			SpringApplication application = new SpringApplication(new DefaultResourceLoader(compiled.loader()),
					compiled.loader().loadClass("snippets.App"));
			application.setWebApplicationType(WebApplicationType.NONE);
			return application.run("--spring.datasource.url=jdbc:sqlite:" + database,
					"--spring.datasource.hikari.data-source-properties.journal_mode=WAL",
					"--spring.datasource.hikari.data-source-properties.foreign_keys=true",
					"--spring.datasource.hikari.data-source-properties.busy_timeout=5000",
					"--spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE",
					"--jobqueue.worker.auto-startup=false", "--jobqueue.scheduling.auto-startup=false");
		}
		finally {
			thread.setContextClassLoader(previous);
		}
	}

	static Map<String, String> readSnippets() throws IOException {
		Path repository = Path.of(System.getProperty("repository"));
		Map<String, String> snippets = new LinkedHashMap<>();
		for (Path page : snippetPages(repository)) {
			String markdown = Files.readString(repository.resolve(page));
			Matcher block = JAVA.matcher(markdown);
			int index = 0;
			while (block.find()) {
				String indent = block.group(1);
				String code = block.group(2)
					.lines()
					.map((line) -> line.startsWith(indent) ? line.substring(indent.length()) : line)
					.reduce("", (a, b) -> a + b + "\n");
				snippets.put(page.toString().replace('\\', '/') + "#" + index++, code);
			}
		}
		return snippets;
	}

	static Compiled compile(Path work, Map<String, String> snippets) throws IOException {
		Path sources = work.resolve("src");
		List<Path> files = new ArrayList<>();
		List<String> running = new ArrayList<>();
		for (Map.Entry<String, Harness> entry : HARNESSES.entrySet()) {
			String snippet = snippets.get(entry.getKey());
			if (snippet != null) {
				files.addAll(entry.getValue().write(sources, snippet));
				if (entry.getValue().runs()) {
					running.add("\"snippets." + entry.getValue().name() + "\"");
				}
			}
		}
		Path app = Files.createDirectories(sources.resolve("snippets")).resolve("App.java");
		Files.writeString(app,
				"""
						package snippets;
						@org.springframework.boot.autoconfigure.SpringBootApplication(proxyBeanMethods = false,
								scanBasePackages = { %s },
						nameGenerator = org.springframework.context.annotation.FullyQualifiedAnnotationBeanNameGenerator.class)
						@org.springframework.boot.autoconfigure.ImportAutoConfiguration(dev.jobqueue.test.JobQueueTestAutoConfiguration.class)
						public class App {}
						"""
					.formatted(String.join(", ", running)));
		files.add(app);
		Path classes = Files.createDirectories(work.resolve("classes"));
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager fileManager = compiler.getStandardFileManager(diagnostics, null, null)) {
			compiler.getTask(
					null, fileManager, diagnostics, List.of("-classpath", classPath(), "-d", classes.toString(),
							"-parameters", "--release", "17", "-proc:none"),
					null, fileManager.getJavaFileObjectsFromPaths(files))
				.call();
		}
		List<String> errors = new ArrayList<>();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
				errors.add(diagnostic.toString());
			}
		}
		URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() },
				GuideSnippetsTests.class.getClassLoader());
		return new Compiled(snippets, errors, loader);
	}

	/** The snippets as read, what javac said of them, and their classes. */
	record Compiled(Map<String, String> snippets, List<String> errors, URLClassLoader loader) {
	}

	/**
	 * The test's class path, with the entries of a manifest-only jar (as Surefire may
	 * start the test with) spelled out for javac.
	 */
	static String classPath() throws IOException {
		List<String> entries = new ArrayList<>();
		for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
			entries.add(entry);
			if (entry.endsWith(".jar") && Files.isRegularFile(Path.of(entry))) {
				try (java.util.jar.JarFile jar = new java.util.jar.JarFile(entry)) {
					java.util.jar.Manifest manifest = jar.getManifest();
					String named = (manifest != null) ? manifest.getMainAttributes().getValue("Class-Path") : null;
					if (named != null) {
						for (String url : named.trim().split("\\s+")) {
							entries.add(Path.of(Path.of(entry).getParent().toUri().resolve(url)).toString());
						}
					}
				}
			}
		}
		return String.join(java.io.File.pathSeparator, entries);
	}

	static List<Path> snippetPages(Path repository) throws IOException {
		List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
		try (var guide = Files.list(repository.resolve("docs/guide"))) {
			guide.filter((file) -> file.toString().endsWith(".md"))
				.sorted()
				.forEach((file) -> pages.add(repository.relativize(file)));
		}
		return pages;
	}

	/** A snippet's class: where the snippet goes, and how to run it, if it is run. */
	record Harness(String name, String source, String scenario, boolean runs) {

		static Harness compile(String name, String source) {
			return new Harness(name, source, null, false);
		}

		static Harness run(String name, String source, String scenario) {
			return new Harness(name, source, scenario, true);
		}

		/**
		 * Declarations go in Snippet.java, the lines after "// In any bean" in the
		 * scenario.
		 */
		List<Path> write(Path sources, String snippet) throws IOException {
			String declarations = snippet;
			String statements = "";
			int split = snippet.indexOf("// In any bean");
			if (split >= 0) {
				declarations = snippet.substring(0, split);
				statements = snippet.substring(snippet.indexOf('\n', split) + 1);
			}
			else if (!this.source.contains("%s")) {
				declarations = "";
				statements = snippet;
			}
			Path folder = Files.createDirectories(sources.resolve("snippets").resolve(this.name));
			String header = "package snippets." + this.name + ";\n" + IMPORTS;
			String body = this.source.replace("%s", declarations.replaceAll("(?m)^import .*$", ""));
			String imports = declarations.lines()
				.filter((line) -> line.startsWith("import "))
				.reduce("", (a, b) -> a + b + "\n");
			List<Path> files = new ArrayList<>();
			Path main = folder.resolve("Snippet.java");
			Files.writeString(main, header + imports + lift(body));
			files.add(main);
			if (this.scenario != null) {
				Path scenarioFile = folder.resolve("Scenario.java");
				Files.writeString(scenarioFile, header + this.scenario.replace("%s", statements));
				files.add(scenarioFile);
			}
			return files;
		}

		/** Imports that the class template itself declares go to the top of the file. */
		private static String lift(String body) {
			String imports = body.lines()
				.filter((line) -> line.startsWith("import "))
				.reduce("", (a, b) -> a + b + "\n");
			String rest = body.lines().filter((line) -> !line.startsWith("import ")).reduce("", (a, b) -> a + b + "\n");
			return imports + rest;
		}

	}

}
