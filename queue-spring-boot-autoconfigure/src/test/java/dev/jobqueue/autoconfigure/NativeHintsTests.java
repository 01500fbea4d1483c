package dev.jobqueue.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;
import org.springframework.javapoet.ClassName;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a native image of an application with handlers needs, checked with Spring's hint
 * predicates (a GraalVM toolchain is not available here to build one).
 */
class NativeHintsTests {

	@Test
	void handlerMethodsAndTheirRecordPayloadsAndResultsAreRegistered() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("thumbnails", new RootBeanDefinition(Thumbnails.class));
		beanFactory.registerBeanDefinition("unrelated", new RootBeanDefinition(String.class));
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "App")), new InMemoryGeneratedFiles());

		List<BeanFactoryInitializationAotProcessor> processors = AotServices.factories()
			.load(BeanFactoryInitializationAotProcessor.class)
			.asList();
		assertThat(processors).hasAtLeastOneElementOfType(JobHandlerBeanFactoryInitializationAotProcessor.class);
		BeanFactoryInitializationAotContribution contribution = new JobHandlerBeanFactoryInitializationAotProcessor()
			.processAheadOfTime(beanFactory);
		contribution.applyTo(generation, null);

		RuntimeHints hints = generation.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Thumbnails.class, "render")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(ThumbnailRequest.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ThumbnailRequest.class, "imageId"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Thumbnail.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(JobContext.class)).rejects(hints);
	}

	@Test
	void theSettingsOfHandlersByTypeBindInANativeImage() {
		RuntimeHints hints = new RuntimeHints();
		BindableRuntimeHintsRegistrar.forTypes(QueueProperties.class).registerHints(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(QueueProperties.class, "setHandlers"))
			.accepts(hints);
		assertThat(
				RuntimeHintsPredicates.reflection().onMethodInvocation(QueueProperties.Handler.class, "setRateLimit"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(QueueProperties.Handler.class, "setBlockOnFailure")).accepts(hints);
	}

	@Test
	void noContributionWithoutHandlers() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("unrelated", new RootBeanDefinition(String.class));
		assertThat(new JobHandlerBeanFactoryInitializationAotProcessor().processAheadOfTime(beanFactory)).isNull();
	}

	@Test
	void migrationsAndTheVirtualThreadLookupAreRegistered() {
		RuntimeHints hints = new RuntimeHints();
		AotServices.factories()
			.load(org.springframework.aot.hint.RuntimeHintsRegistrar.class)
			.asList()
			.forEach((registrar) -> registrar.registerHints(hints, getClass().getClassLoader()));

		assertThat(RuntimeHintsPredicates.resource().forResource("dev/jobqueue/sqlite/migration/V1__create_jobs.sql"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/jobqueue/sqlite/migration/V4__schedules.sql"))
			.accepts(hints);
		// Java 21 methods: the build runs on Java 17, where the predicates cannot look
		// them up, so read the hints.
		assertThat(hints.reflection().getTypeHint(Thread.class).methods())
			.anyMatch((method) -> method.getName().equals("ofVirtual"));
		assertThat(hints.reflection().getTypeHint(java.util.concurrent.Executors.class).methods())
			.anyMatch((method) -> method.getName().equals("newThreadPerTaskExecutor"));
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(org.springframework.aot.hint.TypeReference.of("java.lang.Thread$Builder"))).accepts(hints);
	}

	record ThumbnailRequest(long imageId, int width) {
	}

	record Thumbnail(String path) {
	}

	static class Thumbnails {

		@JobHandler("thumbnail")
		Thumbnail render(ThumbnailRequest request, JobContext context) {
			return new Thumbnail("thumbs/" + request.imageId());
		}

	}

}
