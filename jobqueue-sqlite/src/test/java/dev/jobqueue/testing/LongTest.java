package dev.jobqueue.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * A test that starts JVMs, kills them, injects faults or loads a database for many
 * seconds. It runs with {@code -Preliability} (which CI uses: the README's test command),
 * not in the quick {@code ./mvnw verify} loop.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("long")
public @interface LongTest {

}
