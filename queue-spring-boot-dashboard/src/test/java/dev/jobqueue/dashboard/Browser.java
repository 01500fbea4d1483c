package dev.jobqueue.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven by Selenium, with a fresh profile in a temporary
 * directory. Nothing is downloaded: the browser and its driver are the system's
 * ({@code apt-get install chromium chromium-driver}). Keeps what the page's console said,
 * so tests can require that it said nothing wrong.
 */
final class Browser implements AutoCloseable {

	static final String CHROMIUM = System.getProperty("jobqueue.test.chromium", "/usr/bin/chromium");

	static final String CHROMEDRIVER = System.getProperty("jobqueue.test.chromedriver", "/usr/bin/chromedriver");

	/** The operator of {@link BrowserTestApplication}, who may do everything. */
	static final String OPERATOR = "operator";

	static final String OPERATOR_PASSWORD = "browser-test-operator";

	private final ChromeDriver driver;

	private final Path profile;

	private final List<String> console = new ArrayList<>();

	private Browser(ChromeDriver driver, Path profile) {
		this.driver = driver;
		this.profile = profile;
	}

	static Browser start(Path workDirectory, int width, int height) {
		if (!Files.isExecutable(Path.of(CHROMIUM)) || !Files.isExecutable(Path.of(CHROMEDRIVER))) {
			throw new IllegalStateException("The browser tests need Chromium and its driver at " + CHROMIUM + " and "
					+ CHROMEDRIVER + ": apt-get install -y chromium chromium-driver (.ci/run does it)");
		}
		try {
			Path profile = Files.createTempDirectory(workDirectory, "chromium-profile-");
			ChromeOptions options = new ChromeOptions();
			options.setBinary(CHROMIUM);
			options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
					"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
					"--user-data-dir=" + profile, "--window-size=" + width + "," + height);
			options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
			ChromeDriverService service = new ChromeDriverService.Builder()
				.usingDriverExecutable(Path.of(CHROMEDRIVER).toFile())
				.usingAnyFreePort()
				.build();
			ChromeDriver driver = new ChromeDriver(service, options);
			driver.manage().window().setSize(new Dimension(width, height));
			return new Browser(driver, profile);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	ChromeDriver driver() {
		return this.driver;
	}

	void open(String url) {
		readConsole();
		this.driver.get(url);
	}

	/**
	 * Opens {@code url} as the operator: signs in on the application's sign-in form first
	 * when it asks for it (Spring Security's form), then waits to be sent on to
	 * {@code url}.
	 */
	void signIn(String url, String user, String password) {
		open(url);
		if (!this.driver.getCurrentUrl().contains("/login")) {
			return;
		}
		find("#username").sendKeys(user);
		find("#password").sendKeys(password);
		find("button[type='submit']").click();
		waiting(Duration.ofSeconds(10)).until((driver) -> driver.getCurrentUrl().startsWith(url));
	}

	/**
	 * Sends a request from the page, as a script of the signed-in user would: with the
	 * session's cookie and, for a POST, the session's CSRF token as a form field (read
	 * from the sign-in page, which carries it), so that what answers is the dashboard,
	 * not the security filters. Redirects are not followed.
	 * @param loginUrl the sign-in page
	 */
	Response send(String method, String url, String loginUrl) {
		@SuppressWarnings("unchecked")
		List<Object> answer = (List<Object>) this.driver.executeAsyncScript(
				"""
						var method = arguments[0], url = arguments[1], loginUrl = arguments[2];
						var done = arguments[arguments.length - 1];
						var token = (method !== 'POST') ? Promise.resolve(null) : fetch(loginUrl)
							.then(function (response) { return response.text(); })
							.then(function (text) {
								var field = new DOMParser().parseFromString(text, 'text/html').querySelector("input[name='_csrf']");
								return field ? field.value : null;
							});
						token.then(function (csrf) {
							var init = { method: method, redirect: 'manual' };
							if (csrf !== null) {
								init.headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
								init.body = '_csrf=' + encodeURIComponent(csrf);
							}
							return fetch(url, init);
						}).then(function (response) {
							return response.text().then(function (text) { done([response.status, text]); });
						}, function (error) { done([-1, String(error)]); });
						""",
				method, url, loginUrl);
		return new Response(((Number) answer.get(0)).intValue(), (String) answer.get(1));
	}

	WebElement find(String css) {
		return this.driver.findElement(By.cssSelector(css));
	}

	List<WebElement> findAll(String css) {
		return this.driver.findElements(By.cssSelector(css));
	}

	// The page swaps its live part every refresh, so an element found a moment ago may be
	// gone: read and click in
	// one step, in the page, instead of holding on to elements.

	/**
	 * The rendered text of the element {@code css} selects; fails if there is none within
	 * a few seconds (a click may start its navigation after it returns).
	 */
	String text(String css) {
		Object text = null;
		try {
			text = waiting(Duration.ofSeconds(5)).until((driver) -> this.driver.executeScript(
					"var e = document.querySelector(arguments[0]); return e ? e.innerText.trim() : null", css));
		}
		catch (org.openqa.selenium.TimeoutException ex) {
			// Reported below, with the page's address.
		}
		if (text == null) {
			throw new org.openqa.selenium.NoSuchElementException(
					"No element " + css + " on " + this.driver.getCurrentUrl());
		}
		return (String) text;
	}

	/**
	 * An attribute of the element {@code css} selects, or {@code null} when there is no
	 * such element.
	 */
	String attribute(String css, String name) {
		return (String) this.driver.executeScript(
				"var e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null", css,
				name);
	}

	/**
	 * The texts of the elements {@code css} selects, keyed by their {@code key}
	 * attribute.
	 */
	@SuppressWarnings("unchecked")
	Map<String, String> textsBy(String css, String key) {
		return (Map<String, String>) this.driver.executeScript(
				"var found = {}, key = arguments[1];" + "document.querySelectorAll(arguments[0]).forEach(function (e) {"
						+ " found[e.getAttribute(key)] = e.innerText.trim(); }); return found;",
				css, key);
	}

	int count(String css) {
		return ((Number) this.driver.executeScript("return document.querySelectorAll(arguments[0]).length", css))
			.intValue();
	}

	/**
	 * Clicks the element {@code css} selects, finding it again if a refresh replaced it
	 * meanwhile.
	 */
	void click(String css) {
		waiting(Duration.ofSeconds(10)).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
			.until((driver) -> {
				find(css).click();
				return true;
			});
	}

	WebDriverWait waiting(Duration timeout) {
		return new WebDriverWait(this.driver, timeout, Duration.ofMillis(200));
	}

	/**
	 * Warnings and errors the console printed since the browser started (or since
	 * {@link #clearConsole}).
	 */
	List<String> consoleProblems() {
		readConsole();
		return List.copyOf(this.console);
	}

	void clearConsole() {
		readConsole();
		this.console.clear();
	}

	private void readConsole() {
		for (LogEntry entry : this.driver.manage().logs().get(LogType.BROWSER)) {
			if (entry.getLevel().intValue() >= Level.WARNING.intValue()) {
				this.console.add(entry.getLevel() + " " + entry.getMessage());
			}
		}
	}

	/**
	 * Saves a screenshot of the whole page as it is now (the window grows to the page's
	 * height for it).
	 */
	void screenshot(Path target) {
		Dimension size = this.driver.manage().window().getSize();
		long height = ((Number) this.driver.executeScript("return document.documentElement.scrollHeight")).longValue();
		this.driver.manage().window().setSize(new Dimension(size.getWidth(), (int) Math.min(height + 120, 4000)));
		try {
			Files.createDirectories(target.getParent());
			Files.copy(this.driver.getScreenshotAs(OutputType.FILE).toPath(), target,
					StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		finally {
			this.driver.manage().window().setSize(size);
		}
	}

	@Override
	public void close() {
		this.driver.quit();
	}

	/** What {@link #send} got back. */
	record Response(int status, String body) {
	}

}
