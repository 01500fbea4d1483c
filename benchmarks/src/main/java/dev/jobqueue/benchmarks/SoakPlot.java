package dev.jobqueue.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

import javax.imageio.ImageIO;

/**
 * Draws a soak's samples over time as a PNG: sizes above (tables, indexes, write-ahead
 * log, in MB; dead rows in thousands), claim latency below (p50 and p99, ms). Plain
 * Java2D, headless, so the benchmark needs no plotting library.
 */
final class SoakPlot {

	private static final int WIDTH = 1000;

	private static final int PANEL = 300;

	private static final int MARGIN = 60;

	private SoakPlot() {
	}

	static void write(Path file, String title, List<SoakMain.Sample> samples) throws IOException {
		System.setProperty("java.awt.headless", "true");
		BufferedImage image = new BufferedImage(WIDTH, 2 * PANEL + 2 * MARGIN, BufferedImage.TYPE_INT_RGB);
		Graphics2D g = image.createGraphics();
		g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
		g.setColor(Color.WHITE);
		g.fillRect(0, 0, image.getWidth(), image.getHeight());
		g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
		g.setColor(Color.BLACK);
		g.drawString("Soak " + title, MARGIN, 20);
		double minutes = samples.isEmpty() ? 1 : Math.max(1, samples.get(samples.size() - 1).seconds() / 60.0);
		panel(g, MARGIN / 2 + 10, "size over time (minutes)", minutes, samples,
				List.of(new Line("tables MB", new Color(0x1f77b4), (s) -> s.tableBytes() / 1048576.0),
						new Line("indexes MB", new Color(0xff7f0e), (s) -> s.indexBytes() / 1048576.0),
						new Line("WAL MB", new Color(0x2ca02c), (s) -> s.walBytes() / 1048576.0),
						new Line("dead rows (k)", new Color(0xd62728), (s) -> s.deadRows() / 1000.0)));
		panel(g, PANEL + MARGIN + 30, "claim latency of first runs (ms)", minutes, samples,
				List.of(new Line("p50 ms", new Color(0x9467bd), SoakMain.Sample::p50Millis),
						new Line("p99 ms", new Color(0x8c564b), SoakMain.Sample::p99Millis)));
		g.dispose();
		ImageIO.write(image, "png", file.toFile());
	}

	private record Line(String name, Color color, ToDoubleFunction<SoakMain.Sample> value) {

	}

	private static void panel(Graphics2D g, int top, String caption, double minutes, List<SoakMain.Sample> samples,
			List<Line> lines) {
		int left = MARGIN;
		int right = WIDTH - 20;
		int bottom = top + PANEL - 30;
		double max = 1;
		for (Line line : lines) {
			for (SoakMain.Sample sample : samples) {
				max = Math.max(max, line.value().applyAsDouble(sample));
			}
		}
		max = niceCeiling(max);
		g.setColor(Color.LIGHT_GRAY);
		for (int i = 0; i <= 4; i++) {
			int y = bottom - (bottom - top) * i / 4;
			g.drawLine(left, y, right, y);
			g.setColor(Color.DARK_GRAY);
			g.drawString(label(max * i / 4), 5, y + 4);
			g.setColor(Color.LIGHT_GRAY);
		}
		g.setColor(Color.DARK_GRAY);
		for (int i = 0; i <= 5; i++) {
			int x = left + (right - left) * i / 5;
			g.drawString(label(minutes * i / 5), x - 5, bottom + 15);
		}
		g.drawString(caption, left, bottom + 28);
		int legend = left + 10;
		for (Line line : lines) {
			g.setColor(line.color());
			g.setStroke(new BasicStroke(2f));
			int previousX = -1;
			int previousY = -1;
			for (SoakMain.Sample sample : samples) {
				int x = left + (int) ((right - left) * (sample.seconds() / 60.0) / minutes);
				int y = bottom - (int) ((bottom - top) * line.value().applyAsDouble(sample) / max);
				if (previousX >= 0) {
					g.drawLine(previousX, previousY, x, y);
				}
				previousX = x;
				previousY = y;
			}
			g.drawString(line.name(), legend, top + 12);
			legend += g.getFontMetrics().stringWidth(line.name()) + 20;
		}
	}

	private static String label(double value) {
		return (value == Math.rint(value)) ? String.format(Locale.ROOT, "%.0f", value)
				: String.format(Locale.ROOT, "%.1f", value);
	}

	private static double niceCeiling(double value) {
		double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
		for (double step : new double[] { 1, 2, 5, 10 }) {
			if (value <= step * magnitude) {
				return step * magnitude;
			}
		}
		return 10 * magnitude;
	}

}
