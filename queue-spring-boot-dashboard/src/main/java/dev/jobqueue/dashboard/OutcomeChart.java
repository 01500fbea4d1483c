package dev.jobqueue.dashboard;

import java.util.List;
import java.util.Locale;

import dev.jobqueue.views.Outcomes;

/**
 * The chart of runs ended per slot as an inline SVG: stacked bars (succeeded at the
 * bottom, then retried, then failed), one path per series so a day of minutes stays three
 * elements, with the totals in words beside it for readers who cannot see it.
 */
final class OutcomeChart {

	private static final int WIDTH = 720;

	private static final int HEIGHT = 160;

	private OutcomeChart() {
	}

	static void render(Html html, List<Outcomes> slots, String period) {
		long succeeded = 0;
		long failed = 0;
		long retried = 0;
		long highest = 1;
		for (Outcomes slot : slots) {
			succeeded += slot.succeeded();
			failed += slot.failed();
			retried += slot.retried();
			highest = Math.max(highest, slot.total());
		}
		String summary = period + ": " + Formats.count(succeeded) + " succeeded, " + Formats.count(failed) + " failed, "
				+ Formats.count(retried) + " retried";
		html.raw("<p class=\"legend\" id=\"outcome-totals\">")
			.raw("<span class=\"key ok\"></span>")
			.text(Formats.count(succeeded) + " succeeded ")
			.raw("<span class=\"key retried\"></span>")
			.text(Formats.count(retried) + " retried ")
			.raw("<span class=\"key failed\"></span>")
			.text(Formats.count(failed) + " failed")
			.raw("</p>");
		html.raw("<svg class=\"chart\" role=\"img\" viewBox=\"0 0 " + WIDTH + " " + (HEIGHT + 18)
				+ "\" preserveAspectRatio=\"none\"")
			.attr("aria-label", summary)
			.raw(">");
		html.raw("<title>").text(summary).raw("</title>");
		html.raw("<line class=\"axis\" x1=\"0\" y1=\"" + HEIGHT + "\" x2=\"" + WIDTH + "\" y2=\"" + HEIGHT + "\"/>");
		if (!slots.isEmpty()) {
			double slotWidth = (double) WIDTH / slots.size();
			double scale = (HEIGHT - 4.0) / highest;
			StringBuilder ok = new StringBuilder();
			StringBuilder again = new StringBuilder();
			StringBuilder bad = new StringBuilder();
			for (int i = 0; i < slots.size(); i++) {
				Outcomes slot = slots.get(i);
				double x = i * slotWidth;
				double base = HEIGHT;
				base = bar(ok, x, slotWidth, base, slot.succeeded() * scale);
				base = bar(again, x, slotWidth, base, slot.retried() * scale);
				bar(bad, x, slotWidth, base, slot.failed() * scale);
			}
			html.raw("<path class=\"ok\" d=\"" + ok + "\"/>");
			html.raw("<path class=\"retried\" d=\"" + again + "\"/>");
			html.raw("<path class=\"failed\" d=\"" + bad + "\"/>");
			html.raw("<text x=\"2\" y=\"12\" class=\"scale\">")
				.text(Formats.count(highest) + " per slot")
				.raw("</text>");
			html.raw("<text x=\"2\" y=\"" + (HEIGHT + 15) + "\" class=\"scale\">")
				.text(Formats.time(slots.get(0).start()))
				.raw("</text>");
			html.raw("<text x=\"" + WIDTH + "\" y=\"" + (HEIGHT + 15) + "\" class=\"scale\" text-anchor=\"end\">")
				.text("now")
				.raw("</text>");
		}
		html.raw("</svg>");
	}

	private static double bar(StringBuilder path, double x, double width, double base, double height) {
		if (height <= 0) {
			return base;
		}
		double drawn = Math.max(height, 1);
		path.append(String.format(Locale.ROOT, "M%.2f %.2fh%.2fv%.2fh%.2fz", x, base - drawn,
				Math.max(width * 0.85, 0.5), drawn, -Math.max(width * 0.85, 0.5)));
		return base - drawn;
	}

}
