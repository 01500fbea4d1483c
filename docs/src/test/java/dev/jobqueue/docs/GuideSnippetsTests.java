package dev.jobqueue.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java snippets of the README and the guide, read from the Markdown as written, each
 * put into a small class of its own (imports, the fields and types the snippet takes for
 * granted, and for the lines that enqueue, a method that runs them), and compiled
 * together against the published modules. A new snippet fails the build until it has its
 * class here. The README's snippet is also run, in a new application, by the readme-app
 * integration test.
 */
class GuideSnippetsTests {

	private static final Pattern JAVA = Pattern.compile("^( *)```java\\n(.*?)^ *```",
			Pattern.DOTALL | Pattern.MULTILINE);

	private static final String IMPORTS = """
			import java.time.Duration;
			import java.util.*;
			import java.util.concurrent.*;
			import dev.jobqueue.*;
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
				@SpringBootApplication(proxyBeanMethods = false) class App {}
				""", """
				public class Scenario implements java.util.function.Function<ApplicationContext, Long> {
					public Long apply(ApplicationContext context) {
						JobQueue jobQueue = context.getBean(JobQueue.class);
						%s
						return id;
					}
				}
				"""));
		HARNESSES.put("docs/guide/chains.md#0", Harness.run("chains", """
				record Upload(long id) {}
				record Scan(long fileId) {}
				record Publish(long fileId) {}
				@Component class Storage { void store(Upload file) {} }
				@Component class VirusScanner { boolean isClean(long fileId) { return true; } }
				@Component class Cdn {
					private final List<Long> published = new CopyOnWriteArrayList<>();
					String publish(long fileId) { published.add(fileId); return "https://cdn.example/" + fileId; }
					public List<Long> published() { return published; }
				}
				@Component class UploadJobs {
					@Autowired Storage storage;
					@Autowired VirusScanner virusScanner;
					@Autowired Cdn cdn;
					%s
				}
				@SpringBootApplication(proxyBeanMethods = false) class App {}
				""", """
				public class Scenario implements java.util.function.Function<ApplicationContext, Long> {
					public Long apply(ApplicationContext context) {
						JobQueue jobQueue = context.getBean(JobQueue.class);
						return jobQueue.enqueue("upload", new Upload(7));
					}
				}
				"""));
		HARNESSES.put("docs/guide/chains.md#1", Harness.run("fanout", """
				@Component class ImportJobs {
					@JobHandler("import-row") void row(String line) {}
					@JobHandler("import-summary") String summary(long fileId) { return "file " + fileId; }
				}
				@SpringBootApplication(proxyBeanMethods = false) class App {}
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
		HARNESSES.put("docs/guide/durable-steps.md#0",
				Harness
					.run("steps",
							"""
									import org.springframework.jdbc.core.JdbcTemplate;
									record Order(long id, String card, long total, String email) {}
									record Receipt(String id) {}
									@Component class Payments {
										Receipt charge(String card, long total, String idempotencyKey) { return new Receipt("r-" + idempotencyKey); }
									}
									@Component class Mail { void sendReceipt(String email, Receipt receipt) {} }
									@Component class Checkout {
										@Autowired Payments payments;
										@Autowired Mail mail;
										@Autowired JdbcTemplate jdbc;
										%s
									}
									@SpringBootApplication(proxyBeanMethods = false) class App {}
									""",
							"""
									public class Scenario implements java.util.function.Function<ApplicationContext, Long> {
										public Long apply(ApplicationContext context) {
											context.getBean(org.springframework.jdbc.core.JdbcTemplate.class).execute(
													"CREATE TABLE ledger (order_id INTEGER, receipt_id TEXT, amount INTEGER)");
											return context.getBean(JobQueue.class).enqueue("checkout", new Order(5, "4242", 1999, "a@example.com"));
										}
									}
									""")
					.sharingTheApplicationsDataSource());
		HARNESSES.put("docs/guide/flow-control.md#0",
				Harness.run("flow",
						"""
								%s
								@Component class PaymentProvider { String charge(String customerId, long cents) { return "receipt-" + customerId; } }
								@SpringBootApplication(proxyBeanMethods = false) class App {}
								""",
						"""
								public class Scenario implements java.util.function.Function<ApplicationContext, Long> {
									public Long apply(ApplicationContext context) {
										JobQueue jobQueue = context.getBean(JobQueue.class);
										String customerId = "customer-42";
										return %s
									}
								}
								"""));
		HARNESSES.put("docs/guide/schedules.md#0", Harness.compile("schedules", """
				record Report(int images) {}
				@Component class Reports { Report lastHour() { return new Report(0); } }
				@Component class ReportJobs {
					@Autowired Reports reports;
					%s
				}
				"""));
		HARNESSES.put("docs/guide/testing.md#0", Harness.compile("testing",
				"""
						%s
						record Upload(List<Long> jobIds) {}
						@Component class ImageService { Upload upload(String name, int width, int height) { return new Upload(List.of()); } }
						"""));
	}

	@TempDir
	Path work;

	@Test
	void everyJavaSnippetOfTheManualCompiles() throws Exception {
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
		assertThat(snippets.keySet()).as("the Java snippets of the manual, each with its class in GuideSnippetsTests")
			.containsExactlyInAnyOrderElementsOf(HARNESSES.keySet());

		Path sources = this.work.resolve("src");
		List<Path> files = new ArrayList<>();
		for (Map.Entry<String, Harness> entry : HARNESSES.entrySet()) {
			files.addAll(entry.getValue().write(sources, snippets.get(entry.getKey())));
		}
		Path classes = Files.createDirectories(this.work.resolve("classes"));
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager fileManager = compiler.getStandardFileManager(diagnostics, null, null)) {
			boolean compiled = compiler.getTask(
					null, fileManager, diagnostics, List.of("-classpath", classPath(), "-d", classes.toString(),
							"-parameters", "--release", "17", "-proc:none"),
					null, fileManager.getJavaFileObjectsFromPaths(files))
				.call();
			StringBuilder errors = new StringBuilder();
			for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
				if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
					errors.append(diagnostic).append('\n');
				}
			}
			assertThat(compiled).as("the manual's snippets compile:%n%s", errors).isTrue();
		}
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
	record Harness(String name, String source, String scenario, boolean sharesTheApplicationsDataSource) {

		static Harness compile(String name, String source) {
			return new Harness(name, source, null, false);
		}

		static Harness run(String name, String source, String scenario) {
			return new Harness(name, source, scenario, false);
		}

		Harness sharingTheApplicationsDataSource() {
			return new Harness(this.name, this.source, this.scenario, true);
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
