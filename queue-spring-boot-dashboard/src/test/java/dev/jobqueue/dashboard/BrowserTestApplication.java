package dev.jobqueue.dashboard;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.PropertySource;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The application the browser tests drive: the queue, the dashboard with its actions on
 * and the {@code jobqueue} endpoint with its writes open
 * ({@code browser-test.properties}), and one operator who signs in to the dashboard with
 * a form and to the actuator with HTTP Basic, as an application protects both.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@EnableWebSecurity
@Import(BrowserTestJobs.class)
@PropertySource("classpath:dev/jobqueue/dashboard/browser-test.properties")
class BrowserTestApplication {

	/**
	 * The dashboard is a set of pages in a browser: a sign-in form and a session, and
	 * CSRF protection on, as the browser would send the session's cookie with a form
	 * posted from another site too.
	 */
	@Bean
	@Order(1)
	SecurityFilterChain dashboardSecurityFilterChain(HttpSecurity http) throws Exception {
		http.securityMatcher("/jobqueue/**", "/login", "/logout");
		http.authorizeHttpRequests(
				(requests) -> requests.requestMatchers("/jobqueue/**").hasRole("OPERATOR").anyRequest().permitAll());
		http.formLogin(Customizer.withDefaults());
		return http.build();
	}

	/** The actuator: HTTP Basic per request, no session. */
	@Bean
	@Order(2)
	SecurityFilterChain actuatorSecurityFilterChain(HttpSecurity http) throws Exception {
		http.authorizeHttpRequests(
				(requests) -> requests.requestMatchers("/actuator/**").hasRole("OPERATOR").anyRequest().permitAll());
		http.httpBasic(Customizer.withDefaults());
		http.sessionManagement((session) -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS));
		http.csrf((csrf) -> csrf.disable());
		return http.build();
	}

	@Bean
	InMemoryUserDetailsManager users() {
		return new InMemoryUserDetailsManager(User.withUsername(Browser.OPERATOR)
			.password("{noop}" + Browser.OPERATOR_PASSWORD)
			.roles("OPERATOR")
			.build());
	}

}
