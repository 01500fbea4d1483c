package dev.jobqueue;

import java.lang.reflect.AnnotatedType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.stream.Stream;

import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API says which values may be null, in JSpecify's annotations, as Spring Framework 7
 * and Boot 4 do: Kotlin reads them as nullable types and null checkers hold callers to
 * them. Everything else in the package is non-null.
 */
class NullnessAnnotationsTests {

	@Test
	void theApiPackageIsNullMarked() {
		assertThat(Job.class.getPackage().isAnnotationPresent(NullMarked.class)).isTrue();
	}

	@Test
	void aJobsOptionalStateIsNullableAndNothingElse() {
		assertThat(nullableComponents(Job.class)).containsExactlyInAnyOrder("result", "dedupKey", "startedAt",
				"finishedAt", "workerId", "heartbeatAt", "leaseUntil", "errorCode", "errorDetail", "chainId",
				"chainIndex", "key");
		assertThat(nullableComponents(ScheduleInfo.class)).containsExactlyInAnyOrder("lastTickAt", "lastJobId");
		assertThat(nullableComponents(PausedType.class)).isEmpty();
	}

	@Test
	void aRequestsUnsetOptionsAreNullable() throws Exception {
		assertThat(nullableReturns(JobRequest.class)).containsExactlyInAnyOrder("payload", "runAt", "delay",
				"maxAttempts", "dedupKey", "key");
		assertThat(JobRequest.class.getMethod("of", String.class, Object.class).getAnnotatedParameterTypes()[1]
			.isAnnotationPresent(Nullable.class)).isTrue();
		assertThat(JobRequest.class.getMethod("dedupKey", String.class).getAnnotatedParameterTypes()[0]
			.isAnnotationPresent(Nullable.class)).isTrue();
		assertThat(JobRequest.class.getMethod("key", String.class).getAnnotatedParameterTypes()[0]
			.isAnnotationPresent(Nullable.class)).isTrue();
	}

	@Test
	void aSchedulesDefaultZoneAndMissingNextTickAreNullable() throws Exception {
		assertThat(nullableReturns(Schedule.class)).containsExactlyInAnyOrder("zone", "nextAfter");
		assertThat(Schedule.class.getMethod("cron", String.class, ZoneId.class).getAnnotatedParameterTypes()[1]
			.isAnnotationPresent(Nullable.class)).isTrue();
	}

	private static Stream<String> nullableComponents(Class<? extends Record> type) {
		return Arrays.stream(type.getRecordComponents())
			.filter((component) -> component.getAnnotatedType().isAnnotationPresent(Nullable.class))
			.map(RecordComponent::getName);
	}

	private static Stream<String> nullableReturns(Class<?> type) {
		return Arrays.stream(type.getDeclaredMethods())
			.filter((method) -> Modifier.isPublic(method.getModifiers()))
			.filter((method) -> isNullable(method.getAnnotatedReturnType()))
			.map(Method::getName)
			.distinct();
	}

	private static boolean isNullable(AnnotatedType type) {
		return type.isAnnotationPresent(Nullable.class);
	}

}
