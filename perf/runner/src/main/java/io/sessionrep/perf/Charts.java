package io.sessionrep.perf;

import io.sessionrep.perf.Samples.Stats;
import io.sessionrep.perf.Scenario.Config;
import io.sessionrep.perf.Scenario.Point;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The report's graphs: a metric against state size (or threads), one line per configuration. PNG, drawn
 * headless with XChart.
 */
final class Charts {

    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
            new Color(0x8c564b)};

    private Charts() {
    }

    /** Mean response time (ms) against the scenario's x axis; returns the file name. */
    static String responseTime(Measurements m, Path dir) throws IOException {
        return chart(m, dir, "mean response time (ms)", "response-time", Stats::mean);
    }

    static String throughput(Measurements m, Path dir) throws IOException {
        return chart(m, dir, "throughput (requests/s)", "throughput", Stats::throughput);
    }

    static String p99(Measurements m, Path dir) throws IOException {
        return chart(m, dir, "p99 response time (ms)", "p99", s -> s.p99());
    }

    private static String chart(Measurements m, Path dir, String yTitle, String kind, ToDoubleFunction<Stats> metric)
            throws IOException {
        Scenario s = m.scenario;
        String xTitle = s.xAxis().equals("threads") ? "concurrent users (threads)" : "session state (KiB = number x size)";
        XYChart chart = new XYChartBuilder().width(760).height(480)
                .title("Scenario " + s.id() + ": " + s.title()).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        Styler st = chart.getStyler();
        chart.getStyler().setXAxisLogarithmic(s.points().size() > 1);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridLinesColor(new Color(0xdddddd));
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setAntiAlias(true);
        st.setDecimalPattern("#,##0.##");
        int i = 0;
        for (Config config : s.configs()) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (Point p : s.points()) {
                Measurements.Cell cell = m.cell(config.id(), p);
                if (!cell.rounds.isEmpty()) {
                    xs.add(p.x(s.xAxis()));
                    ys.add(metric.applyAsDouble(cell.combined()));
                }
            }
            if (xs.isEmpty()) {
                continue;
            }
            XYSeries series = chart.addSeries(config.label(), xs, ys);
            series.setMarker(SeriesMarkers.CIRCLE);
            series.setLineColor(COLORS[i % COLORS.length]);
            series.setMarkerColor(COLORS[i % COLORS.length]);
            series.setLineStyle(new BasicStroke(2f));
            i++;
        }
        String file = "s" + s.id() + "-" + kind + ".png";
        BitmapEncoder.saveBitmap(chart, dir.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }
}
