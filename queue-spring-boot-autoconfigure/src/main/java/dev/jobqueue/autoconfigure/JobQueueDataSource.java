package dev.jobqueue.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Marks the {@link javax.sql.DataSource} the job queue uses, when the application has
 * several, as {@code @FlywayDataSource} does for Flyway. The queue then shares it: its
 * writes join the application's transactions on it. Only SQLite is supported for now.
 * {@code jobqueue.datasource.url}, when set, still wins.
 *
 * <pre class="code">
 * &#64;Bean
 * &#64;JobQueueDataSource
 * DataSource jobsDataSource() { ... }
 * </pre>
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface JobQueueDataSource {

}
