package dev.jobqueue.sample;

import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;

import dev.jobqueue.actuate.CrossSiteWriteFilter;

/**
 * Who may do what. Uploads and image reads are open, as the sample's public API. The
 * app's own job API (a job, a chain, retry and cancel), the actuator's retry, cancel,
 * pause and resume and every actuator endpoint but health, info and prometheus need the
 * one operator user of {@code spring.security.user.*} (HTTP Basic). The dashboard at
 * {@code /jobqueue} is for the operator too, signed in with a form.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

	/**
	 * The dashboard is a set of pages in a browser: a sign-in form and a session, and
	 * CSRF protection on, as the browser would send the session's cookie with a form
	 * posted from another site too.
	 */
	@Bean
	@Order(1)
	SecurityFilterChain dashboardSecurityFilterChain(HttpSecurity http) {
		http.securityMatcher("/jobqueue/**", "/login", "/logout");
		// The README's two lines that protect the dashboard.
		http.authorizeHttpRequests(
				(requests) -> requests.requestMatchers("/jobqueue/**").hasRole("OPERATOR").anyRequest().permitAll());
		http.formLogin(Customizer.withDefaults());
		return http.build();
	}

	@Bean
	@Order(2)
	SecurityFilterChain securityFilterChain(HttpSecurity http) {
		http.authorizeHttpRequests(
				(requests) -> requests.requestMatchers(EndpointRequest.to("health", "info", "prometheus"))
					.permitAll()
					.requestMatchers(EndpointRequest.toAnyEndpoint())
					.hasRole("OPERATOR")
					.requestMatchers("/jobs/**", "/chains/**")
					.hasRole("OPERATOR")
					.anyRequest()
					.permitAll());
		http.httpBasic(Customizer.withDefaults());
		// A JSON API authenticated per request with HTTP Basic: no session and no cookie,
		// so nothing for a
		// cross-site request to ride on, and CSRF tokens would only get in the way of
		// curl and scripts.
		http.sessionManagement((session) -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS));
		http.csrf((csrf) -> csrf.disable());
		return http.build();
	}

	/**
	 * The API's writes refuse what a page of another site sent: with CSRF tokens off, a
	 * browser would send a cached Basic login along with another site's form post. The
	 * queue's own filter judges by {@code Sec-Fetch-Site} and {@code Origin}; curl and
	 * scripts send neither and pass.
	 */
	@Bean
	FilterRegistrationBean<CrossSiteWriteFilter> apiCrossSiteWriteFilter() {
		FilterRegistrationBean<CrossSiteWriteFilter> registration = new FilterRegistrationBean<>(
				new CrossSiteWriteFilter());
		registration.addUrlPatterns("/jobs/*", "/images", "/images/*");
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 100);
		return registration;
	}

}
