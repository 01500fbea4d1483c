package dev.jobqueue.autoconfigure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Lets the application's own Flyway migrate before the queue's schema is created. On a new file shared with
 * the application, the queue's tables would otherwise make the application's Flyway find a non-empty schema
 * without its history table, and refuse to migrate.
 */
class QueueSchemaOrdering implements BeanFactoryPostProcessor {

	static final String APPLICATION_FLYWAY_INITIALIZER = "flywayInitializer";

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
		if (!beanFactory.containsBeanDefinition(APPLICATION_FLYWAY_INITIALIZER)) {
			return;
		}
		for (String name : beanFactory.getBeanNamesForType(QueueSchemaInitializer.class, true, false)) {
			BeanDefinition definition = beanFactory.getBeanDefinition(name);
			List<String> dependsOn = new ArrayList<>();
			if (definition.getDependsOn() != null) {
				dependsOn.addAll(Arrays.asList(definition.getDependsOn()));
			}
			dependsOn.add(APPLICATION_FLYWAY_INITIALIZER);
			definition.setDependsOn(dependsOn.toArray(String[]::new));
		}
	}

}
