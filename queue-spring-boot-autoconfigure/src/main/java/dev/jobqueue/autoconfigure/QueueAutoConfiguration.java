package dev.jobqueue.autoconfigure;

import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;

import dev.jobqueue.JobQueue;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.LocalSignals;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.StepTransactions;
import dev.jobqueue.core.TraceContextSource;
import dev.jobqueue.core.UnhandledTypeWarnings;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.schedule.JobScheduler;
import dev.jobqueue.core.schedule.SchedulerSettings;
import dev.jobqueue.core.store.JobAdminStore;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.core.store.ScheduleStore;
import dev.jobqueue.core.worker.DefaultErrorClassifier;
import dev.jobqueue.core.worker.ErrorClassifier;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.RunInterceptor;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.jackson.JacksonPayloadCodec;
import dev.jobqueue.jackson.JobQueueJacksonModule;
import dev.jobqueue.jdbc.StoreProviders;
import dev.jobqueue.jdbc.StoreSettings;
import dev.jobqueue.jdbc.spring.SpringStepTransactions;
import dev.jobqueue.jdbc.spring.SpringTransactions;
import dev.jobqueue.views.QueueSnapshot;
import dev.jobqueue.views.QueueViews;

/**
 * Auto-configures the job queue: the store module that serves the queue's database (see
 * {@link QueueDataSource} for which database), the schema, the {@link JobQueue},
 * {@code @JobHandler} scanning and the worker. Every bean can be replaced by declaring
 * one of the same type.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
		"org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration" })
@ConditionalOnClass({ StoreProviders.class, org.flywaydb.core.Flyway.class })
@ConditionalOnBooleanProperty(name = "jobqueue.enabled", matchIfMissing = true)
@EnableConfigurationProperties(QueueProperties.class)
public final class QueueAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	QueueDataSource queueDataSource(QueueProperties properties,
			@JobQueueDataSource ObjectProvider<DataSource> queueDataSource,
			ObjectProvider<DataSource> applicationDataSource, ListableBeanFactory beanFactory,
			Environment environment) {
		ClassLoader classLoader = (beanFactory instanceof ConfigurableBeanFactory configurable
				&& configurable.getBeanClassLoader() != null) ? configurable.getBeanClassLoader()
						: QueueDataSource.class.getClassLoader();
		return QueueDataSource.choose(properties.getDatasource(), storeSettings(properties, null),
				queueDataSource.getIfAvailable(), applicationDataSource.getIfUnique(),
				List.of(beanFactory.getBeanNamesForType(DataSource.class)),
				environment.getProperty("spring.datasource.url"), StoreProviders.load(classLoader), classLoader);
	}

	/** What the store is built with, from the properties. */
	static StoreSettings storeSettings(QueueProperties properties, QueueSignals signals) {
		QueueProperties.Datasource datasource = properties.getDatasource();
		return new StoreSettings(properties.getTablePrefix(), properties.getPostgresql().getSchema(),
				datasource.getUsername(), datasource.getPassword(), datasource.getPoolSize(),
				datasource.getConnectionTimeout(), datasource.getBusyTimeout(), datasource.getLockWait(),
				datasource.getSynchronous(), properties.getEnqueue().getVisibility(), new SpringTransactions(),
				signals);
	}

	@Bean
	@ConditionalOnMissingBean
	JobQueueClock jobQueueClock() {
		return JobQueueClock.system();
	}

	/**
	 * The queue on the chosen DataSource, built by the store module that serves it. On
	 * stores that hear other processes (PostgreSQL's LISTEN), their enqueues and cancels
	 * wake this process's worker.
	 */
	@Bean
	@ConditionalOnMissingBean
	QueueStorage queueStorage(QueueDataSource dataSource, QueueProperties properties, LocalSignals signals) {
		return dataSource.store()
			.createStorage(dataSource.dataSource(), dataSource.location(), dataSource.isShared(),
					storeSettings(properties, signals));
	}

	@Bean
	@ConditionalOnMissingBean
	QueueSchemaInitializer queueSchemaInitializer(QueueStorage storage, QueueProperties properties,
			ObjectProvider<QueueDataSource> dataSource) {
		return new QueueSchemaInitializer(storage, properties.getDatasource().getInitializeSchema(),
				dataSource.getIfUnique());
	}

	@Bean
	@ConditionalOnMissingBean
	JobStore queueJobStore(QueueStorage storage, QueueSchemaInitializer schemaInitializer) {
		return storage.jobs();
	}

	@Bean
	@ConditionalOnMissingBean
	JobAdminStore queueJobAdminStore(QueueStorage storage, QueueSchemaInitializer schemaInitializer) {
		return storage.admin();
	}

	@Bean
	@ConditionalOnMissingBean
	QueueInsights queueInsights(QueueStorage storage, QueueSchemaInitializer schemaInitializer) {
		return storage.insights();
	}

	@Bean
	@ConditionalOnMissingBean
	QueueViews queueViews(QueueInsights insights) {
		return new QueueViews(insights);
	}

	@Bean
	@ConditionalOnMissingBean
	LocalSignals jobQueueSignals() {
		return new LocalSignals();
	}

	@Bean
	@ConditionalOnMissingBean
	HandlerRegistry jobHandlerRegistry() {
		return new HandlerRegistry();
	}

	@Bean
	static JobHandlerBeanPostProcessor jobHandlerBeanPostProcessor(ObjectProvider<HandlerRegistry> registry,
			ObjectProvider<PayloadCodec> codec, ObjectProvider<JobScheduler> scheduler,
			ObjectProvider<QueueProperties> properties) {
		return new JobHandlerBeanPostProcessor(registry::getObject, codec::getObject, scheduler::getIfAvailable,
				() -> properties.getObject().getHandlers());
	}

	@Bean
	@ConditionalOnMissingBean
	ScheduleStore queueScheduleStore(QueueStorage storage, QueueSchemaInitializer schemaInitializer) {
		return storage.schedules();
	}

	@Bean
	@ConditionalOnMissingBean
	JobScheduler jobSchedules(ScheduleStore store, HandlerRegistry handlers, PayloadCodec codec,
			QueueProperties properties, JobQueueClock clock, LocalSignals signals) {
		QueueProperties.Scheduling scheduling = properties.getScheduling();
		ZoneId zone = (scheduling.getZone() != null) ? scheduling.getZone() : ZoneId.systemDefault();
		SchedulerSettings settings = new SchedulerSettings(WorkerIds.newId(), zone, scheduling.getMisfire(),
				scheduling.getMisfireThreshold(), properties.getRetry().getMaxAttempts());
		JobScheduler scheduler = new JobScheduler(store, handlers, codec, clock.clock(), settings, () -> signals);
		scheduling.getSchedules().forEach((name, entry) -> ConfiguredSchedules.register(scheduler, name, entry));
		return scheduler;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "jobqueue.scheduling.enabled", matchIfMissing = true)
	@DependsOnDatabaseInitialization
	QueueScheduler queueScheduler(JobScheduler scheduler, QueueProperties properties, JobQueueClock clock) {
		QueueProperties.Scheduling scheduling = properties.getScheduling();
		if (scheduling.getPollInterval() != null
				&& scheduling.getPollInterval().compareTo(scheduling.getMisfireThreshold()) >= 0) {
			throw new IllegalStateException("jobqueue.scheduling.poll-interval (" + scheduling.getPollInterval()
					+ ") must be shorter than jobqueue.scheduling.misfire-threshold ("
					+ scheduling.getMisfireThreshold() + "), or ticks fired on time would count as missed. Lower the "
					+ "poll interval or raise the threshold.");
		}
		return new QueueScheduler(scheduler, clock.clock(), properties.getScheduling().getPollInterval(),
				scheduling.isAutoStartup());
	}

	@Bean
	@ConditionalOnMissingBean
	PayloadCodec jobQueuePayloadCodec(ObjectProvider<JsonMapper> jsonMapper) {
		return new JacksonPayloadCodec(
				jsonMapper.getIfAvailable(() -> JsonMapper.builder().findAndAddModules().build()));
	}

	/**
	 * Job statuses in lower case in the application's JSON too (Boot's {@code JsonMapper}
	 * registers every {@code JacksonModule} bean).
	 */
	@Bean
	@ConditionalOnMissingBean
	JobQueueJacksonModule jobQueueJacksonModule() {
		return new JobQueueJacksonModule();
	}

	@Bean
	@ConditionalOnMissingBean
	ErrorClassifier jobQueueErrorClassifier() {
		return new DefaultErrorClassifier();
	}

	@Bean
	@ConditionalOnMissingBean
	JobQueue jobQueue(JobStore store, JobAdminStore admin, PayloadCodec codec, HandlerRegistry handlers,
			QueueProperties properties, JobQueueClock clock, ObjectProvider<TraceContextSource> traceContext,
			LocalSignals signals, ObjectProvider<QueueViews> views) {
		EnqueueLimits limits = new EnqueueLimits(properties.getRetry().getMaxAttempts(),
				properties.getMaxPayloadSize().toBytes());
		DefaultJobQueue queue = new DefaultJobQueue(store, admin, codec, handlers, clock.clock(), limits,
				traceContext.getIfUnique());
		queue.setSignals(signals);
		queue.setUnhandledTypeWarnings(new UnhandledTypeWarnings(handlers, () -> {
			QueueViews found = views.getIfUnique();
			return (found != null) ? found.snapshot(clock.clock().instant(), properties.snapshotSettings())
				.workers()
				.stream()
				.filter(QueueSnapshot.WorkerState::alive)
				.flatMap((worker) -> worker.types().stream())
				.collect(Collectors.toSet()) : null;
		}));
		return queue;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "jobqueue.worker.enabled", matchIfMissing = true)
	@DependsOnDatabaseInitialization
	QueueWorker queueWorker(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ErrorClassifier classifier,
			QueueProperties properties, JobQueueClock clock, LocalSignals signals, Environment environment,
			ObjectProvider<WorkerListener> listeners, ObjectProvider<RunInterceptor> interceptors,
			QueueDataSource dataSource, ObjectProvider<PlatformTransactionManager> transactionManagers) {
		RetryPolicy retry = new RetryPolicy(properties.getRetry().getInitialBackoff(),
				properties.getRetry().getMaxBackoff(), () -> ThreadLocalRandom.current().nextDouble());
		WorkerFactory factory = new WorkerFactory(store, handlers, codec, classifier, retry, clock.clock(),
				properties.getWorker(), environment, () -> WorkerListener.composite(listeners.orderedStream().toList()),
				() -> RunInterceptor.chain(interceptors.orderedStream().toList()),
				properties.getMaxResultSize().toBytes());
		// Continuations a handler asks for are checked against the limits of enqueue.
		EnqueueLimits limits = new EnqueueLimits(properties.getRetry().getMaxAttempts(),
				properties.getMaxPayloadSize().toBytes());
		return new QueueWorker((executor) -> {
			JobWorker worker = factory.create(executor);
			worker.setEnqueueLimits(limits);
			worker.setStepTransactions(stepTransactions(dataSource, transactionManagers.getIfUnique()));
			return worker;
		}, signals, properties.getWorker().isAutoStartup());
	}

	/**
	 * Transactional steps run in the application's transactions when the queue shares its
	 * DataSource; else they are refused, saying why, since the step's writes and its
	 * record would not commit together.
	 */
	static StepTransactions stepTransactions(QueueDataSource dataSource,
			PlatformTransactionManager transactionManager) {
		if (!dataSource.isShared()) {
			return StepTransactions.refusing("the queue has a DataSource of its own (" + dataSource.description()
					+ "), so a step's writes to the application's database cannot commit with its record. Leave "
					+ "jobqueue.datasource.url unset so the queue shares the application's DataSource, or use "
					+ "context.step(...) and make the writes idempotent with context.idempotencyKey(...)");
		}
		if (transactionManager == null) {
			return StepTransactions.refusing("the application has no single transaction manager to run the step's "
					+ "transaction (add spring-boot-starter-jdbc, which declares one for the application's "
					+ "DataSource, or mark one @Primary)");
		}
		return new SpringStepTransactions(transactionManager);
	}

	@Bean
	static UnknownSettingsCheck jobQueueUnknownSettingsCheck(Environment environment) {
		return new UnknownSettingsCheck(environment, UnknownSettingsCheck.class.getClassLoader());
	}

	@Bean
	HandlerSettingsCheck jobQueueHandlerSettingsCheck(QueueProperties properties, HandlerRegistry handlers) {
		return new HandlerSettingsCheck(properties.getHandlers(), handlers);
	}

	@Bean
	TransactionManagerCheck jobQueueTransactionManagerCheck(ListableBeanFactory beanFactory,
			QueueDataSource dataSource) {
		return new TransactionManagerCheck(beanFactory, dataSource);
	}

	@Bean
	static LazyInitializationExcludeFilter jobHandlerLazyInitializationExcludeFilter() {
		return new JobHandlerBeanLazyInitializationExcludeFilter();
	}

	@Bean
	static LazyInitializationExcludeFilter queueWorkerLazyInitializationExcludeFilter() {
		return LazyInitializationExcludeFilter.forBeanTypes(QueueWorker.class, QueueScheduler.class);
	}

}
