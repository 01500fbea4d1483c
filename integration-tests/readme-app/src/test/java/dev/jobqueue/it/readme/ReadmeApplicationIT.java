package dev.jobqueue.it.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A new application, as a reader of the README writes it: a Spring Boot project whose pom
 * takes the dependency snippets of the README's "Getting started" (the BOM import and the
 * starter) and of the guide's "Testing your handlers" (the test support, no version) as
 * written, whose sources are the handler of "Getting started", and whose one test runs
 * the README's enqueue lines with {@code @AutoConfigureJobQueue}. Built by a Maven of its
 * own in a temporary folder, against this build's artifacts (installed by invoker:install
 * in a repository of its own) and with every other artifact from this build's local
 * repository, never from the network.
 */
class ReadmeApplicationIT {

	private static final Pattern BLOCK = Pattern.compile("```(\\w+)\\n(.*?)```", Pattern.DOTALL);

	@TempDir
	Path project;

	@Test
	void anApplicationFromTheReadmesSnippetsBuildsAndItsTestPasses() throws Exception {
		String readme = Files.readString(Path.of(System.getProperty("readme")));
		String gettingStarted = section(readme, "## Getting started");
		String testing = Files.readString(Path.of(System.getProperty("guide"), "testing.md"));

		String dependencies = block(gettingStarted, "xml", 0);
		assertThat(dependencies).contains("<artifactId>jobqueue-bom</artifactId>").contains("<scope>import</scope>");
		String testSupport = block(testing, "xml", 0);
		assertThat(testSupport).contains("<artifactId>queue-spring-boot-test</artifactId>").doesNotContain("<version>");
		String handlerAndEnqueue = block(gettingStarted, "java", 0);
		int enqueue = handlerAndEnqueue.indexOf("long id = ");
		assertThat(enqueue).as("the README's enqueue lines").isPositive();

		write("pom.xml", pom(dependencies, testSupport));
		write("src/main/resources/application.properties", block(gettingStarted, "properties", 0));
		write("src/main/java/com/example/readme/ReadmeApplication.java", """
				package com.example.readme;

				import org.springframework.boot.SpringApplication;
				import org.springframework.boot.autoconfigure.SpringBootApplication;

				@SpringBootApplication
				public class ReadmeApplication {

					public static void main(String[] args) {
						SpringApplication.run(ReadmeApplication.class, args);
					}

				}
				""");
		write("src/main/java/com/example/readme/Thumbnails.java", """
				package com.example.readme;

				import dev.jobqueue.JobContext;
				import dev.jobqueue.JobHandler;
				import org.springframework.stereotype.Component;

				""" + handlerAndEnqueue.substring(0, enqueue));
		write("src/test/java/com/example/readme/ReadmeTests.java", """
				package com.example.readme;

				import java.time.Duration;

				import dev.jobqueue.JobQueue;
				import dev.jobqueue.JobRequest;
				import dev.jobqueue.test.AutoConfigureJobQueue;
				import dev.jobqueue.test.JobQueueTester;
				import org.junit.jupiter.api.Test;
				import org.springframework.beans.factory.annotation.Autowired;
				import org.springframework.boot.test.context.SpringBootTest;

				import static org.assertj.core.api.Assertions.assertThat;

				@SpringBootTest
				@AutoConfigureJobQueue
				class ReadmeTests {

					@Autowired JobQueue jobQueue;
					@Autowired JobQueueTester tester;

					@Test
					void theReadmesEnqueueLinesRunTheHandler() {
						ThumbnailRequest request = new ThumbnailRequest(7, 64);
				""" + handlerAndEnqueue.substring(enqueue) + """
						tester.runDueJobs();
						assertThat(jobQueue.result(id, String.class)).contains("thumbs/42.jpg");
					}

				}
				""");
		write("settings.xml", settings(Path.of(System.getProperty("buildRepository"))));

		Path log = this.project.resolve("build.log");
		List<String> command = new ArrayList<>(List.of(maven(), "-B", "-s", "settings.xml",
				"-Dmaven.repo.local=" + System.getProperty("testRepository"), "test"));
		Process build = new ProcessBuilder(command).directory(this.project.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		// A bound against a hung build only, not a claim about its speed.
		assertThat(build.waitFor(10, TimeUnit.MINUTES)).isTrue();
		String output = Files.readString(log);
		assertThat(build.exitValue()).as("the new application's build:%n%s", output).isZero();
		assertThat(output).contains("Tests run: 1, Failures: 0, Errors: 0, Skipped: 0")
			.contains("@AutoConfigureJobQueue: the job queue uses a throwaway SQLite file");
	}

	private static String pom(String dependencies, String testSupport) {
		int end = dependencies.lastIndexOf("</dependencies>");
		String withTests = dependencies.substring(0, end) + indent(testSupport, "    ") + """
				    <dependency>
				        <groupId>org.springframework.boot</groupId>
				        <artifactId>spring-boot-starter-test</artifactId>
				        <scope>test</scope>
				    </dependency>
				""" + dependencies.substring(end);
		return """
				<?xml version="1.0" encoding="UTF-8"?>
				<project xmlns="http://maven.apache.org/POM/4.0.0"
				         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
				         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
				    <modelVersion>4.0.0</modelVersion>
				    <parent>
				        <groupId>org.springframework.boot</groupId>
				        <artifactId>spring-boot-starter-parent</artifactId>
				        <version>4.1.2</version>
				        <relativePath/>
				    </parent>
				    <groupId>com.example</groupId>
				    <artifactId>readme-app</artifactId>
				    <version>1.0</version>
				    <properties>
				        <java.version>17</java.version>
				    </properties>
				"""
				+ withTests + "\n</project>\n";
	}

	/** Every repository, through a mirror on this build's local repository. */
	private static String settings(Path buildRepository) {
		return """
				<settings>
				    <mirrors>
				        <mirror>
				            <id>build-repository</id>
				            <mirrorOf>*</mirrorOf>
				            <url>%s</url>
				        </mirror>
				    </mirrors>
				</settings>
				""".formatted(buildRepository.toUri());
	}

	private static String maven() {
		return Path.of(System.getProperty("maven.home"), "bin", "mvn").toString();
	}

	private static String section(String readme, String heading) {
		int start = readme.indexOf("\n" + heading + "\n");
		assertThat(start).as("the README's section %s", heading).isNotNegative();
		int end = readme.indexOf("\n## ", start + heading.length() + 2);
		return readme.substring(start, (end >= 0) ? end : readme.length());
	}

	private static String block(String section, String language, int index) {
		Matcher matcher = BLOCK.matcher(section);
		int found = 0;
		while (matcher.find()) {
			if (matcher.group(1).equals(language) && found++ == index) {
				return matcher.group(2).stripIndent();
			}
		}
		throw new AssertionError("No " + language + " block " + index + " in:\n" + section);
	}

	private static String indent(String text, String prefix) {
		return text.lines().map((line) -> prefix + line + "\n").reduce("", String::concat);
	}

	private void write(String path, String content) throws IOException {
		Path file = this.project.resolve(path);
		Files.createDirectories(file.getParent());
		Files.writeString(file, content);
	}

}
