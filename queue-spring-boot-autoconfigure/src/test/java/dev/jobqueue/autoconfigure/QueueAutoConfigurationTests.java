package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import dev.jobqueue.Job;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.actuate.QueueHealthIndicator;
import dev.jobqueue.autoconfigure.actuate.QueueHealthAutoConfiguration;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.worker.DefaultErrorClassifier;
import dev.jobqueue.core.worker.ErrorClassifier;
import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteJobStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ExtendWith(OutputCaptureExtension.class)
class QueueAutoConfigurationTests {

	@TempDir
	Path dir;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class));

	private String ownUrl() {
		return "jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db");
	}

	private ApplicationContextRunner withApplicationDataSource() {
		return this.contextRunner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class));
	}

	private String[] sharedSqlite() {
		return new String[] { "spring.datasource.url=jdbc:sqlite:" + this.dir.resolve("app.db"),
				"spring.datasource.hikari.data-source-properties.journal_mode=WAL",
				"spring.datasource.hikari.data-source-properties.foreign_keys=true",
				"spring.datasource.hikari.data-source-properties.busy_timeout=5000",
				"spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE" };
	}

	@Test
	void defaultsGiveAQueueAWorkerAndAMigratedFileWithoutDataSourceOrFlywayBeans() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(QueueAutoConfiguration.class))
			.withPropertyValues(ownUrl())
			.run((context) -> {
				assertThat(context).hasSingleBean(JobQueue.class)
					.hasSingleBean(QueueWorker.class)
					.hasSingleBean(SqliteJobStore.class)
					.doesNotHaveBean(DataSource.class)
					.doesNotHaveBean(Flyway.class);
				assertThat(context.getBean(QueueDataSource.class).isShared()).isFalse();
				assertThat(this.dir.resolve("queue.db")).exists();
				assertThat(context.getBean(QueueWorker.class).isRunning()).isTrue();
			});
	}

	@Test
	void claimAheadDefaultsToSixteenPerSlotAndCanBeSetOrTurnedOff() {
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.worker.concurrency=16").run((context) -> {
			assertThat(context.getBean(QueueWorker.class).worker().claimAhead()).isEqualTo(256);
			assertThat(context.getBean(QueueWorker.class).worker().waitingCount()).isZero();
		});
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.worker.concurrency=2")
			.run((context) -> assertThat(context.getBean(QueueWorker.class).worker().claimAhead()).isEqualTo(64));
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.worker.claim-ahead=0")
			.run((context) -> assertThat(context.getBean(QueueWorker.class).worker().claimAhead()).isZero());
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.worker.claim-ahead=1000")
			.run((context) -> assertThat(context.getBean(QueueWorker.class).worker().claimAhead()).isEqualTo(1000));
	}

	@Test
	void aClaimAheadThatCannotWorkFailsBindingSayingWhatToSet() {
		for (String bad : new String[] { "-1", "1001" }) {
			this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.worker.claim-ahead=" + bad)
				.run((context) -> assertThat(context.getStartupFailure()).isNotNull()
					.rootCause()
					.hasMessageContaining("jobqueue.worker.claim-ahead must be between 0 and 1000, got " + bad)
					.hasMessageContaining("0 turns claim-ahead off"));
		}
	}

	@Test
	void aJobSerialisesItsStatusInLowerCaseAsTheEndpointShowsIt() {
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.worker.auto-startup=false").run((context) -> {
			JsonMapper mapper = context.getBean(JsonMapper.class);
			JobQueue queue = context.getBean(JobQueue.class);
			Job job = queue.find(queue.enqueue("greet", new Greeting("ada"))).orElseThrow();
			String json = mapper.writeValueAsString(job);
			assertThat(json).contains("\"status\":\"pending\"");
			assertThat(mapper.readValue(json, Job.class)).isEqualTo(job);
			assertThat(mapper.readValue("\"PENDING\"", JobStatus.class)).isEqualTo(JobStatus.PENDING);
		});
	}

	@Test
	void warnsOnceWhenTheApplicationHasNoTransactionManagerForTransactionalDoesNothingThen(CapturedOutput output) {
		this.contextRunner.withPropertyValues(ownUrl()).run((context) -> assertThat(context).hasNotFailed());
		assertThat(output.toString().split("has no transaction manager, so @Transactional does nothing here", -1))
			.hasSize(2);
	}

	@Test
	void saysNothingOfTransactionsWhenTheApplicationHasATransactionManager(CapturedOutput output) {
		withApplicationDataSource()
			.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
			.withPropertyValues(ownUrl())
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("no transaction manager");
	}

	@Test
	void aJobOfATypeNoProcessHandlesIsWarnedOfOnceAndDegradesHealthWhileItWaits(CapturedOutput output) {
		this.contextRunner.withConfiguration(AutoConfigurations.of(QueueHealthAutoConfiguration.class))
			.withPropertyValues(ownUrl(), "jobqueue.observability.refresh-interval=1ms")
			.withUserConfiguration(ProxiedHandlers.class)
			.run((context) -> {
				JobQueue queue = context.getBean(JobQueue.class);
				QueueHealthIndicator health = context.getBean(QueueHealthIndicator.class);
				long greet = queue.enqueue("greet", new Greeting("ada"));
				await().atMost(Duration.ofSeconds(10))
					.until(() -> queue.find(greet).orElseThrow().status() == JobStatus.SUCCEEDED);
				assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);

				queue.enqueue("no-such-type", "lost");
				queue.enqueue("no-such-type", "lost again");
				queue.enqueue("greet", new Greeting("grace"));

				Health degraded = health.health(true);
				assertThat(degraded.getStatus()).isEqualTo(new Status("DEGRADED"));
				assertThat(degraded.getDetails()).containsEntry("unhandled", Map.of("no-such-type", 2L));
				assertThat(degraded.getDetails().get("problems").toString())
					.contains("2 pending job(s) of type(s) [no-such-type] that no live worker handles");
			});
		assertThat(output.toString().split("A job of type 'no-such-type' was enqueued, but no process", -1)).hasSize(2);
		assertThat(output).doesNotContain("A job of type 'greet'");
	}

	@Test
	void aJobOfATypeOneEditFromAHandledOneIsWarnedOfWithTheHandledType(CapturedOutput output) {
		this.contextRunner.withPropertyValues(ownUrl())
			.withUserConfiguration(ProxiedHandlers.class)
			.run((context) -> context.getBean(JobQueue.class).enqueue("gret", new Greeting("ada")));
		assertThat(output).contains("A job of type 'gret' was enqueued, but no process")
			.contains("Did you mean 'greet'?");
	}

	@Test
	void aJobOfATypeFarFromEveryHandledOneIsWarnedOfWithoutAGuess(CapturedOutput output) {
		this.contextRunner.withPropertyValues(ownUrl())
			.withUserConfiguration(ProxiedHandlers.class)
			.run((context) -> context.getBean(JobQueue.class).enqueue("invoice-export", "x"));
		assertThat(output).contains("A job of type 'invoice-export' was enqueued, but no process")
			.contains("Check the type's spelling")
			.doesNotContain("Did you mean");
	}

	@Test
	void backsOffWhenDisabled() {
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(JobQueue.class).doesNotHaveBean(QueueWorker.class));
	}

	@Test
	void enqueueOnlyNodeHasNoWorker() {
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.worker.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(JobQueue.class).doesNotHaveBean(QueueWorker.class));
	}

	@Test
	void userBeansWin() {
		this.contextRunner.withPropertyValues(ownUrl()).withUserConfiguration(CustomClassifier.class).run((context) -> {
			assertThat(context).hasSingleBean(ErrorClassifier.class);
			assertThat(context.getBean(ErrorClassifier.class)).isSameAs(CustomClassifier.CLASSIFIER);
		});
	}

	@Test
	void worksWithoutActuatorOrMicrometerOnTheClasspath() {
		this.contextRunner.withPropertyValues(ownUrl())
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate", "io.micrometer"))
			.run((context) -> assertThat(context).hasSingleBean(JobQueue.class));
	}

	@Test
	void sharesTheApplicationsSqliteDataSource() {
		withApplicationDataSource().withPropertyValues(sharedSqlite()).run((context) -> {
			assertThat(context.getBean(QueueDataSource.class).isShared()).isTrue();
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject("SELECT count(*) FROM jobs", Integer.class)).isZero();
		});
	}

	@Test
	void refusesASharedDataSourceWithoutForeignKeysSayingWhatToSet() {
		withApplicationDataSource()
			.withPropertyValues("spring.datasource.url=jdbc:sqlite:" + this.dir.resolve("plain.db"),
					"spring.datasource.hikari.data-source-properties.journal_mode=WAL")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("foreign_keys is off")
				.hasMessageContaining("spring.datasource.hikari.data-source-properties.foreign_keys=true"));
	}

	@Test
	void startsWithoutSpringBootsJdbcModuleOnTheClasspath() {
		this.contextRunner.withPropertyValues(ownUrl())
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.jdbc"))
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(JobQueue.class));
	}

	@Test
	void refusesASharedDataSourceWhoseTransactionsBeginDeferred() {
		withApplicationDataSource().withPropertyValues(sharedSqlite())
			.withPropertyValues("spring.datasource.hikari.data-source-properties.transaction_mode=DEFERRED")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("transactions begin DEFERRED")
				.hasMessageContaining("spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE"));
	}

	@Test
	void refusesASharedDataSourceWithAutoCommitOff() {
		withApplicationDataSource().withPropertyValues(sharedSqlite())
			.withPropertyValues("spring.datasource.hikari.auto-commit=false")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("auto-commit off")
				.hasMessageContaining("spring.datasource.hikari.auto-commit=true"));
	}

	@Test
	void usesItsOwnFileBesideANonSqliteApplicationDataSource() {
		this.contextRunner.withUserConfiguration(NonSqliteDataSource.class)
			.withPropertyValues(ownUrl())
			.run((context) -> assertThat(context.getBean(QueueDataSource.class).isShared()).isFalse());
	}

	/**
	 * spring.datasource.url without a DataSource (no spring-boot-starter-jdbc): the queue
	 * does not quietly fall back to jobqueue.db in the working directory, which on
	 * several hosts would be a queue per host.
	 */
	@Test
	void failsStartUpWhenSpringDatasourceUrlIsSetButTheApplicationHasNoDataSource() {
		this.contextRunner.withPropertyValues("spring.datasource.url=jdbc:postgresql://db:5432/app?password=secret")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(JobQueueException.class)
				.hasMessageContaining("spring.datasource.url is set (jdbc:postgresql://db:5432/app")
				.hasMessageNotContaining("secret")
				.hasMessageContaining("spring-boot-starter-jdbc")
				.hasMessageContaining("jobqueue.datasource.url"));
	}

	@Test
	void failsStartUpListingTheDataSourcesWhenSeveralAndNoneIsChosen() {
		this.contextRunner.withBean(Path.class, () -> this.dir)
			.withUserConfiguration(TwoSqliteDataSources.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("2 DataSource beans [first, second]")
				.hasMessageContaining("@JobQueueDataSource")
				.hasMessageContaining("jobqueue.datasource.url"));
	}

	@Test
	void usesTheDataSourceMarkedForTheQueueAmongSeveral() {
		this.contextRunner.withBean(Path.class, () -> this.dir)
			.withUserConfiguration(TwoSqliteDataSources.class, QueueMarkedDataSource.class)
			.run((context) -> {
				QueueDataSource chosen = context.getBean(QueueDataSource.class);
				assertThat(chosen.isShared()).isTrue();
				assertThat(chosen.dataSource()).isSameAs(context.getBean("jobs"));
			});
	}

	@Test
	void refusesANonSqliteDataSourceMarkedForTheQueue() {
		this.contextRunner.withUserConfiguration(MarkedNonSqliteDataSource.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("marked @JobQueueDataSource is")
				.hasMessageContaining("which no job queue store on the classpath serves")
				.hasMessageContaining(
						"SQLite (dev.jobqueue:jobqueue-sqlite), PostgreSQL (dev.jobqueue:jobqueue-postgresql)"));
	}

	@Test
	void aUrlNoStoreServesFailsStartUpNamingItWithoutItsPasswordAndTheStoresFound() {
		this.contextRunner.withPropertyValues("jobqueue.datasource.url=jdbc:h2:mem:queue;USER=sa;PASSWORD=secret")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("No job queue store serves the URL jdbc:h2:mem:queue;USER=sa;PASSWORD=***")
				.hasMessageNotContaining("secret")
				.hasMessageContaining(
						"SQLite (dev.jobqueue:jobqueue-sqlite), PostgreSQL (dev.jobqueue:jobqueue-postgresql)")
				.hasMessageContaining("add the store module"));
	}

	@Test
	void anApplicationClockDoesNotBecomeTheQueuesClock() {
		this.contextRunner.withPropertyValues(ownUrl())
			.withBean(Clock.class, () -> Clock.fixed(Instant.parse("2000-01-01T00:00:00Z"), ZoneOffset.UTC))
			.withUserConfiguration(ProxiedHandlers.class)
			.run((context) -> {
				assertThat(context.getBean(JobQueueClock.class).clock()).isNotSameAs(context.getBean(Clock.class));
				JobQueue queue = context.getBean(JobQueue.class);
				long id = queue.enqueue(JobRequest.of("greet", new Greeting("later")).delay(Duration.ofMillis(300)));
				await().atMost(Duration.ofSeconds(10))
					.until(() -> queue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
			});
	}

	@Test
	void aJobQueueClockBeanSetsTheQueuesTime() {
		Instant fixed = Instant.parse("2030-06-01T12:00:00Z");
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.worker.enabled=false")
			.withBean(JobQueueClock.class, () -> new JobQueueClock(Clock.fixed(fixed, ZoneOffset.UTC)))
			.run((context) -> {
				JobQueue queue = context.getBean(JobQueue.class);
				long id = queue.enqueue("greet", new Greeting("fixed"));
				assertThat(queue.find(id).orElseThrow().createdAt()).isEqualTo(fixed);
			});
	}

	@Test
	void applicationsOwnFlywayStillRunsNextToTheQueue() {
		withApplicationDataSource().withConfiguration(AutoConfigurations.of(FlywayAutoConfiguration.class))
			.withPropertyValues(sharedSqlite())
			.withPropertyValues("spring.flyway.locations=classpath:app-migrations")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(Flyway.class);
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				assertThat(jdbc.queryForObject("SELECT count(*) FROM images", Integer.class)).isZero();
				assertThat(jdbc.queryForObject("SELECT count(*) FROM jobs", Integer.class)).isZero();
				assertThat(jdbc.queryForObject("SELECT count(*) FROM flyway_schema_history", Integer.class))
					.isPositive();
				assertThat(jdbc.queryForObject("SELECT count(*) FROM jobqueue_schema_history", Integer.class))
					.isPositive();
			});
	}

	@Test
	void findsHandlersOnProxiedBeansAndRunsThem() {
		this.contextRunner.withPropertyValues(ownUrl()).withUserConfiguration(ProxiedHandlers.class).run((context) -> {
			assertThat(context.getBean(HandlerRegistry.class).types()).containsExactlyInAnyOrder("greet", "raw");
			JobQueue queue = context.getBean(JobQueue.class);
			long id = queue.enqueue("greet", new Greeting("ada"));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> queue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
			assertThat(queue.find(id).orElseThrow().result()).isEqualTo("\"hello ada (attempt 1)\"");
			assertThat(queue.result(id, String.class)).contains("hello ada (attempt 1)");
			assertThat(queue.result(id + 1000, String.class)).isEmpty();
			long raw = queue.enqueue("raw", "plain text");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> queue.find(raw).orElseThrow().status() == JobStatus.SUCCEEDED);
			assertThat(Greeter.RAW).contains("plain text");
		});
	}

	@Test
	void payloadsUseTheApplicationsJsonMapperCustomisations() {
		this.contextRunner.withPropertyValues(ownUrl(), "spring.jackson.property-naming-strategy=SNAKE_CASE")
			.run((context) -> {
				JobQueue queue = context.getBean(JobQueue.class);
				long id = queue.enqueue("order", new OrderPlaced("A-1", 3));
				assertThat(queue.find(id).orElseThrow().payload())
					.isEqualTo("{\"order_number\":\"A-1\",\"item_count\":3}");
			});
	}

	record OrderPlaced(String orderNumber, int itemCount) {
	}

	@Test
	void failsStartUpOnTwoHandlersForOneTypeNamingBoth() {
		this.contextRunner.withPropertyValues(ownUrl())
			.withUserConfiguration(DuplicateHandlers.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("Job type 'greet' has two handlers")
					.hasMessageContaining("Greeter.greet()")
					.hasMessageContaining("OtherGreeter.hello()");
			});
	}

	@Test
	void failsStartUpOnASignatureThatCannotWork() {
		this.contextRunner.withPropertyValues(ownUrl()).withUserConfiguration(BadSignature.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Invalid @JobHandler on bean 'twoPayloads' method TwoPayloads.handle()")
				.hasMessageContaining("one payload parameter");
		});
		this.contextRunner.withPropertyValues(ownUrl()).withUserConfiguration(BadTimeout.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("timeout \"soon\" is not a duration");
		});
	}

	@Test
	void enqueueJoinsTheCallersTransaction() {
		withApplicationDataSource()
			.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class,
					TransactionAutoConfiguration.class))
			.withPropertyValues(sharedSqlite())
			.withUserConfiguration(ProxiedHandlers.class)
			.run((context) -> {
				JobQueue queue = context.getBean(JobQueue.class);
				TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				Long rolledBack = transaction.execute((status) -> {
					long id = queue.enqueue("greet", new Greeting("rolled back"));
					status.setRollbackOnly();
					return id;
				});
				assertThat(queue.find(rolledBack)).isEmpty();
				Long committed = transaction.execute((status) -> queue.enqueue("greet", new Greeting("committed")));
				await().atMost(Duration.ofSeconds(10))
					.until(() -> queue.find(committed).orElseThrow().status() == JobStatus.SUCCEEDED);
				assertThat(jdbc.queryForObject("SELECT count(*) FROM jobs", Integer.class)).isOne();
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class NonSqliteDataSource {

		@Bean
		DataSource dataSource() {
			return new org.springframework.jdbc.datasource.SimpleDriverDataSource(new org.h2.Driver(),
					"jdbc:h2:mem:app;DB_CLOSE_DELAY=-1");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MarkedNonSqliteDataSource {

		@Bean
		@JobQueueDataSource
		DataSource dataSource() {
			return new org.springframework.jdbc.datasource.SimpleDriverDataSource(new org.h2.Driver(),
					"jdbc:h2:mem:marked;DB_CLOSE_DELAY=-1");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoSqliteDataSources {

		@Bean(destroyMethod = "close")
		HikariDataSource first(Path dir) {
			return sqlite(dir.resolve("first.db"));
		}

		@Bean(destroyMethod = "close")
		HikariDataSource second(Path dir) {
			return sqlite(dir.resolve("second.db"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class QueueMarkedDataSource {

		@Bean(destroyMethod = "close")
		@JobQueueDataSource
		HikariDataSource jobs(Path dir) {
			HikariDataSource pool = sqlite(dir.resolve("jobs.db"));
			pool.addDataSourceProperty("transaction_mode", "IMMEDIATE");
			return pool;
		}

	}

	static HikariDataSource sqlite(Path file) {
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl("jdbc:sqlite:" + file);
		pool.setDataSourceProperties(
				SqliteDataSources.connectionConfig(Duration.ofSeconds(5), "NORMAL").toProperties());
		return pool;
	}

	record Greeting(String name) {
	}

	static class Greeter {

		static final List<String> RAW = new CopyOnWriteArrayList<>();

		@JobHandler("greet")
		public String greet(Greeting greeting, JobContext context) {
			return "hello " + greeting.name() + " (attempt " + context.attempt() + ")";
		}

		@JobHandler(value = "raw", timeout = "10s", concurrency = 1)
		public void raw(String payload) {
			RAW.add(payload);
		}

	}

	static class OtherGreeter {

		@JobHandler("greet")
		public void hello(Greeting greeting) {
		}

	}

	static class TwoPayloads {

		@JobHandler("two")
		public void handle(Greeting first, Greeting second) {
		}

	}

	static class SoonTimeout {

		@JobHandler(value = "soon", timeout = "soon")
		public void handle(Greeting greeting) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ProxiedHandlers {

		@Bean
		Object greeter() {
			ProxyFactory proxy = new ProxyFactory(new Greeter());
			proxy.setProxyTargetClass(true);
			return proxy.getProxy();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DuplicateHandlers {

		@Bean
		Greeter greeter() {
			return new Greeter();
		}

		@Bean
		OtherGreeter otherGreeter() {
			return new OtherGreeter();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadSignature {

		@Bean
		TwoPayloads twoPayloads() {
			return new TwoPayloads();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadTimeout {

		@Bean
		SoonTimeout soonTimeout() {
			return new SoonTimeout();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomClassifier {

		static final ErrorClassifier CLASSIFIER = new DefaultErrorClassifier();

		@Bean
		ErrorClassifier myClassifier() {
			return CLASSIFIER;
		}

	}

}
