package dev.jobqueue.autoconfigure;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What a native image needs of the queue that a static analysis cannot see: the stores'
 * Flyway migrations (read as resources), and the Java 21 virtual-thread API that
 * {@link dev.jobqueue.core.VirtualThreads} calls reflectively (the code is compiled for
 * Java 17). Handler methods and their payload types are registered per application by
 * {@link JobHandlerBeanFactoryInitializationAotProcessor}.
 */
class QueueRuntimeHints implements RuntimeHintsRegistrar {

	static final String SQLITE_MIGRATIONS = "dev/jobqueue/sqlite/migration/*.sql";

	static final String POSTGRESQL_MIGRATIONS = "dev/jobqueue/postgresql/migration/*.sql";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SQLITE_MIGRATIONS).registerPattern(POSTGRESQL_MIGRATIONS);
		hints.reflection()
			.registerType(Thread.class, (type) -> type.withMethod("ofVirtual", List.of(), ExecutableMode.INVOKE))
			.registerType(TypeReference.of("java.lang.Thread$Builder"), MemberCategory.INVOKE_PUBLIC_METHODS)
			.registerType(TypeReference.of("java.lang.Thread$Builder$OfVirtual"), MemberCategory.INVOKE_PUBLIC_METHODS)
			.registerType(Executors.class, (type) -> type.withMethod("newThreadPerTaskExecutor",
					List.of(TypeReference.of(ThreadFactory.class)), ExecutableMode.INVOKE));
	}

}
