package dev.jobqueue.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.commonmark.Extension;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.HtmlInline;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;

/**
 * The guide as an HTML site: every Markdown page of the manual (the README, the
 * changelog, the sample's README and everything under {@code docs/}) rendered to
 * {@code .html} at the same relative path, with the guide's table of contents
 * ({@code docs/index.md}) on the left of every page, and the files the pages link to
 * (pictures) copied beside them. Every relative link is checked on the way: its file must
 * exist, and its anchor must name a heading (as GitHub makes anchors of headings) or an
 * {@code id} of the page it points to. Links to other sites are not followed.
 */
public final class Site {

	private static final List<Extension> EXTENSIONS = List.of(TablesExtension.create());

	private static final Pattern HTML_ID = Pattern.compile("\\b(?:id|name)=\"([^\"]+)\"");

	private static final Pattern EXTERNAL = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");

	private final Path repository;

	private final Parser parser = Parser.builder().extensions(EXTENSIONS).build();

	private final Map<Path, Page> pages = new LinkedHashMap<>();

	private Site(Path repository) {
		this.repository = repository.toAbsolutePath().normalize();
	}

	/**
	 * Renders the site and fails, listing them, on broken links.
	 * @param args the repository's root and the folder to write the site to
	 * @throws IOException when a page cannot be read or written
	 */
	public static void main(String[] args) throws IOException {
		if (args.length != 2) {
			throw new IllegalArgumentException("Usage: Site <repository root> <output folder>");
		}
		Report report = render(Path.of(args[0]), Path.of(args[1]));
		System.out.printf("Site: %d pages in %s, %d relative links checked, %d broken%n", report.pages(),
				Path.of(args[1]).resolve("docs/index.html"), report.linksChecked(), report.broken().size());
		if (!report.broken().isEmpty()) {
			throw new IllegalStateException("Broken links in the manual:\n  " + String.join("\n  ", report.broken()));
		}
	}

	/**
	 * Checks the links of every page without writing anything.
	 * @param repository the repository's root
	 * @return what was checked and what is broken
	 * @throws IOException when a page cannot be read
	 */
	public static Report check(Path repository) throws IOException {
		return new Site(repository).load().check();
	}

	/**
	 * Renders every page into {@code output} and checks its links.
	 * @param repository the repository's root
	 * @param output the folder to write the site to
	 * @return what was rendered and checked, and what is broken
	 * @throws IOException when a page cannot be read or written
	 */
	public static Report render(Path repository, Path output) throws IOException {
		Site site = new Site(repository).load();
		Report report = site.check();
		site.write(output.toAbsolutePath().normalize());
		return report;
	}

	/** The Markdown pages of the manual, relative to the repository's root. */
	static List<Path> pagesOf(Path repository) throws IOException {
		List<Path> pages = new ArrayList<>();
		for (String file : List.of("README.md", "CHANGELOG.md", "sample-app/README.md")) {
			if (Files.isRegularFile(repository.resolve(file))) {
				pages.add(Path.of(file));
			}
		}
		Path docs = repository.resolve("docs");
		try (Stream<Path> files = Files.walk(docs)) {
			files.filter((file) -> file.toString().endsWith(".md"))
				.map(repository::relativize)
				.filter((file) -> !file.startsWith(Path.of("docs", "target"))
						&& !file.startsWith(Path.of("docs", "src")))
				.sorted()
				.forEach(pages::add);
		}
		return pages;
	}

	private Site load() throws IOException {
		for (Path path : pagesOf(this.repository)) {
			String markdown = Files.readString(this.repository.resolve(path));
			Node document = this.parser.parse(markdown);
			this.pages.put(path, new Page(path, document, anchorsOf(document, markdown)));
		}
		return this;
	}

	private Report check() {
		List<String> broken = new ArrayList<>();
		int checked = 0;
		for (Page page : this.pages.values()) {
			for (String destination : linksOf(page.document())) {
				if (EXTERNAL.matcher(destination).matches()) {
					continue;
				}
				checked++;
				String problem = problemWith(page, destination);
				if (problem != null) {
					broken.add(page.path() + ": " + destination + ": " + problem);
				}
			}
		}
		return new Report(this.pages.size(), checked, broken);
	}

	private String problemWith(Page page, String destination) {
		int hash = destination.indexOf('#');
		String file = (hash >= 0) ? destination.substring(0, hash) : destination;
		String anchor = (hash >= 0) ? destination.substring(hash + 1) : null;
		Path target = page.path();
		if (!file.isEmpty()) {
			Path resolved = this.repository.resolve(page.path()).getParent().resolve(file).normalize();
			if (!resolved.startsWith(this.repository)) {
				return "points outside the repository";
			}
			if (!Files.exists(resolved)) {
				return "no such file";
			}
			target = this.repository.relativize(resolved);
		}
		if (anchor == null || anchor.isEmpty()) {
			return null;
		}
		Page targetPage = this.pages.get(target);
		if (targetPage == null) {
			return "an anchor into a file that is not a page of the manual";
		}
		return targetPage.anchors().contains(anchor) ? null : "no heading or id '" + anchor + "' in " + target;
	}

	private void write(Path output) throws IOException {
		Files.createDirectories(output);
		List<NavSection> navigation = navigation();
		HtmlRenderer renderer = HtmlRenderer.builder().extensions(EXTENSIONS).build();
		Set<Path> copied = new TreeSet<>();
		for (Page page : this.pages.values()) {
			Path html = output.resolve(htmlPath(page.path()));
			Files.createDirectories(html.getParent());
			page.document().accept(new LinkRewriter(page, copied));
			page.document().accept(new HeadingIds());
			Files.writeString(html, layout(page, renderer.render(page.document()), navigation));
		}
		for (Path file : copied) {
			Path to = output.resolve(file);
			Files.createDirectories(to.getParent());
			Files.copy(this.repository.resolve(file), to, StandardCopyOption.REPLACE_EXISTING);
		}
		Files.writeString(output.resolve("index.html"), """
				<!DOCTYPE html>
				<meta charset="utf-8">
				<meta http-equiv="refresh" content="0; url=docs/index.html">
				<title>jobqueue</title>
				<a href="docs/index.html">The jobqueue guide</a>
				""");
	}

	private String layout(Page page, String body, List<NavSection> navigation) {
		Path from = page.path().getParent() == null ? Path.of("") : page.path().getParent();
		StringBuilder nav = new StringBuilder();
		nav.append("<p><a href=\"")
			.append(relative(from, Path.of("docs/index.html")))
			.append("\"><strong>jobqueue guide</strong></a><br><a href=\"")
			.append(relative(from, Path.of("README.html")))
			.append("\">README</a></p>\n");
		for (NavSection section : navigation) {
			nav.append("<h4>").append(escape(section.title())).append("</h4>\n<ul>\n");
			for (NavEntry entry : section.entries()) {
				nav.append("<li><a href=\"")
					.append(relative(from, htmlPath(entry.target())))
					.append(entry.anchor())
					.append("\">")
					.append(escape(entry.title()))
					.append("</a></li>\n");
			}
			nav.append("</ul>\n");
		}
		return """
				<!DOCTYPE html>
				<html lang="en">
				<head>
				<meta charset="utf-8">
				<meta name="viewport" content="width=device-width, initial-scale=1">
				<title>%s · jobqueue</title>
				<style>
				body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: #1f2328; }
				nav { position: fixed; top: 0; bottom: 0; left: 0; width: 17rem; overflow-y: auto; padding: 1rem;
				  background: #f6f8fa; border-right: 1px solid #d0d7de; font-size: 14px; box-sizing: border-box; }
				nav ul { padding-left: 1rem; margin: 0 0 .5rem; } nav h4 { margin: .8rem 0 .2rem; }
				main { margin-left: 17rem; padding: 1rem 2rem; max-width: 60rem; }
				pre { background: #f6f8fa; padding: .8rem; overflow-x: auto; } code { font-size: 90%%; }
				table { border-collapse: collapse; } td, th { border: 1px solid #d0d7de; padding: .3rem .5rem; vertical-align: top; }
				img { max-width: 100%%; }
				</style>
				</head>
				<body>
				<nav>
				%s</nav>
				<main>
				%s</main>
				</body>
				</html>
				"""
			.formatted(escape(titleOf(page)), nav, body);
	}

	/**
	 * The guide's table of contents: the links of docs/index.md under each of its
	 * headings.
	 */
	private List<NavSection> navigation() {
		Page index = this.pages.get(Path.of("docs", "index.md"));
		List<NavSection> sections = new ArrayList<>();
		if (index == null) {
			return sections;
		}
		index.document().accept(new AbstractVisitor() {
			@Override
			public void visit(Heading heading) {
				if (heading.getLevel() == 2) {
					sections.add(new NavSection(textOf(heading), new ArrayList<>()));
				}
			}

			@Override
			public void visit(Link link) {
				String destination = link.getDestination();
				if (!sections.isEmpty() && !EXTERNAL.matcher(destination).matches()) {
					int hash = destination.indexOf('#');
					String file = (hash >= 0) ? destination.substring(0, hash) : destination;
					String anchor = (hash >= 0) ? destination.substring(hash) : "";
					Path target = Path.of("docs").resolve(file).normalize();
					sections.get(sections.size() - 1).entries().add(new NavEntry(textOf(link), target, anchor));
				}
			}
		});
		return sections;
	}

	private static String titleOf(Page page) {
		Node node = page.document().getFirstChild();
		while (node != null) {
			if (node instanceof Heading heading && heading.getLevel() == 1) {
				return textOf(heading);
			}
			node = node.getNext();
		}
		return page.path().toString();
	}

	static Path htmlPath(Path markdown) {
		String name = markdown.getFileName().toString();
		return name.endsWith(".md")
				? markdown.resolveSibling(name.substring(0, name.length() - ".md".length()) + ".html") : markdown;
	}

	private static String relative(Path fromFolder, Path to) {
		return fromFolder.relativize(to).toString().replace('\\', '/');
	}

	private static List<String> linksOf(Node document) {
		List<String> links = new ArrayList<>();
		document.accept(new AbstractVisitor() {
			@Override
			public void visit(Link link) {
				links.add(link.getDestination());
				visitChildren(link);
			}

			@Override
			public void visit(Image image) {
				links.add(image.getDestination());
			}
		});
		return links;
	}

	/**
	 * The anchors of a page: its headings', as GitHub makes them, and the ids in its
	 * HTML.
	 */
	static Set<String> anchorsOf(Node document, String markdown) {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new LinkedHashMap<>();
		document.accept(new AbstractVisitor() {
			@Override
			public void visit(Heading heading) {
				String slug = slug(textOf(heading));
				int count = seen.merge(slug, 1, Integer::sum);
				anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
			}
		});
		Matcher ids = HTML_ID.matcher(markdown);
		while (ids.find()) {
			anchors.add(ids.group(1));
		}
		return anchors;
	}

	/**
	 * A heading's anchor as GitHub makes it: lower case, spaces as hyphens, anything but
	 * letters, digits, hyphens and underscores left out.
	 */
	static String slug(String heading) {
		StringBuilder slug = new StringBuilder();
		heading.toLowerCase(Locale.ROOT).codePoints().forEach((c) -> {
			if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				slug.appendCodePoint(c);
			}
			else if (c == ' ') {
				slug.append('-');
			}
		});
		return slug.toString();
	}

	static String textOf(Node node) {
		StringBuilder text = new StringBuilder();
		node.accept(new AbstractVisitor() {
			@Override
			public void visit(Text literal) {
				text.append(literal.getLiteral());
			}

			@Override
			public void visit(Code code) {
				text.append(code.getLiteral());
			}

			@Override
			public void visit(HtmlInline html) {
			}

			@Override
			public void visit(HtmlBlock html) {
			}
		});
		return text.toString();
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
	}

	/** Links to pages become links to their HTML; files that pages link to are copied. */
	private final class LinkRewriter extends AbstractVisitor {

		private final Page page;

		private final Set<Path> copied;

		LinkRewriter(Page page, Set<Path> copied) {
			this.page = page;
			this.copied = copied;
		}

		@Override
		public void visit(Link link) {
			link.setDestination(rewrite(link.getDestination()));
			visitChildren(link);
		}

		@Override
		public void visit(Image image) {
			image.setDestination(rewrite(image.getDestination()));
		}

		private String rewrite(String destination) {
			if (EXTERNAL.matcher(destination).matches() || destination.startsWith("#")) {
				return destination;
			}
			int hash = destination.indexOf('#');
			String file = (hash >= 0) ? destination.substring(0, hash) : destination;
			String anchor = (hash >= 0) ? destination.substring(hash) : "";
			Path resolved = Site.this.repository.resolve(this.page.path()).getParent().resolve(file).normalize();
			if (!resolved.startsWith(Site.this.repository)) {
				return destination;
			}
			Path target = Site.this.repository.relativize(resolved);
			if (Site.this.pages.containsKey(target)) {
				return htmlPath(Path.of(file)).toString().replace('\\', '/') + anchor;
			}
			if (Files.isRegularFile(resolved)) {
				this.copied.add(target);
			}
			return destination;
		}

	}

	/**
	 * Headings get the ids that GitHub gives them, so that anchors work the same on both.
	 */
	private static final class HeadingIds extends AbstractVisitor {

		private final Map<String, Integer> seen = new LinkedHashMap<>();

		@Override
		public void visit(Heading heading) {
			String slug = slug(textOf(heading));
			int count = this.seen.merge(slug, 1, Integer::sum);
			String id = (count == 1) ? slug : slug + "-" + (count - 1);
			HtmlInline anchor = new HtmlInline();
			anchor.setLiteral("<a id=\"" + id + "\"></a>");
			heading.prependChild(anchor);
		}

	}

	/**
	 * What a render or a check found.
	 *
	 * @param pages the Markdown pages read
	 * @param linksChecked the relative links and anchors checked
	 * @param broken one line per broken link: page, link, what is wrong
	 */
	public record Report(int pages, int linksChecked, List<String> broken) {
	}

	private record Page(Path path, Node document, Set<String> anchors) {
	}

	private record NavSection(String title, List<NavEntry> entries) {
	}

	private record NavEntry(String title, Path target, String anchor) {
	}

}
