package io.sessionrep.perf.jmeter;

import org.apache.jmeter.JMeter;
import org.apache.jmeter.engine.StandardJMeterEngine;
import org.apache.jmeter.report.dashboard.ReportGenerator;
import org.apache.jmeter.reporters.ResultCollector;
import org.apache.jmeter.save.SaveService;
import org.apache.jmeter.util.JMeterUtils;
import org.apache.jorphan.collections.HashTree;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;

/**
 * A long-lived, headless JMeter: one JVM that runs test plans and builds HTML dashboards on request, so
 * that a measurement of many short segments pays JMeter's start-up (several seconds) once.
 *
 * <p>Protocol on stdin, one command per line, fields separated by TAB:
 * <pre>
 * RUN     plan.jmx  results.jtl  run.properties   runs the plan with these JMeter properties, writes CSV
 * REPORT  results.jtl  output-dir                  the JMeter HTML dashboard (as jmeter -g -o)
 * QUIT
 * </pre>
 * Each command is answered by one stdout line starting with {@value #REPLY}: {@code @@DONE} or
 * {@code @@ERROR <message>}. Anything else JMeter prints is not part of the protocol.
 *
 * <p>The JMeter home (argument 1) is the layout JMeter expects: {@code bin/} with its property files and
 * report template, {@code lib/ext} with the JMeter jars (where it looks up functions such as {@code __P}).
 */
public final class JMeterWorker {

    static final String REPLY = "@@";

    private final Properties base = new Properties();
    private final Set<String> runKeys = new HashSet<>();
    private final PrintStream replies;

    private JMeterWorker(Path home, PrintStream replies) throws IOException {
        this.replies = replies;
        String bin = home.resolve("bin").toString();
        JMeterUtils.setJMeterHome(home.toString());
        JMeterUtils.loadJMeterProperties(bin + File.separator + "jmeter.properties");
        Properties props = JMeterUtils.getJMeterProperties();
        load(props, home.resolve("bin/reportgenerator.properties"));
        load(props, home.resolve("bin/user.properties"));
        props.setProperty("jmeter.save.saveservice.output_format", "csv");
        props.setProperty("jmeter.save.saveservice.print_field_names", "true");
        props.setProperty("jmeter.save.saveservice.autoflush", "false");
        // the dashboard's time graphs: one point per second (segments are short)
        props.setProperty("jmeter.reportgenerator.overall_granularity", "1000");
        JMeterUtils.initLocale();
        SaveService.loadProperties();
        base.putAll(props);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: JMeterWorker <jmeter-home>");
            System.exit(2);
        }
        // JMeter and its libraries print to stdout; the protocol keeps its own stream
        PrintStream replies = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        JMeterWorker worker = new JMeterWorker(Path.of(args[0]), replies);
        worker.serve(System.in);
        System.exit(0);
    }

    private void serve(InputStream input) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8));
        replies.println(REPLY + "READY");
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split("\t");
            try {
                switch (f[0]) {
                    case "RUN" -> run(Path.of(f[1]), Path.of(f[2]), Path.of(f[3]));
                    case "REPORT" -> report(Path.of(f[1]), Path.of(f[2]));
                    case "QUIT" -> {
                        replies.println(REPLY + "DONE");
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown command " + f[0]);
                }
                replies.println(REPLY + "DONE");
            } catch (Exception | Error e) {
                e.printStackTrace(System.err);
                replies.println(REPLY + "ERROR " + (e + "").replace('\n', ' '));
            }
        }
    }

    /** One headless test run, as {@code jmeter -n -t plan -l results}. */
    private void run(Path plan, Path results, Path runProperties) throws Exception {
        Properties props = JMeterUtils.getJMeterProperties();
        for (String key : runKeys) {
            props.remove(key);
        }
        runKeys.clear();
        props.putAll(base);
        Properties run = new Properties();
        load(run, runProperties);
        for (String key : run.stringPropertyNames()) {
            props.setProperty(key, run.getProperty(key));
            runKeys.add(key);
        }
        Files.deleteIfExists(results);
        HashTree tree = SaveService.loadTree(plan.toFile());
        JMeter.convertSubTree(tree, false);
        ResultCollector collector = new ResultCollector();
        collector.setFilename(results.toString());
        tree.add(tree.getArray()[0], collector);
        StandardJMeterEngine engine = new StandardJMeterEngine();
        engine.configure(tree);
        engine.run(); // returns when the test has ended and its listeners were told
    }

    /** The HTML dashboard of a results file, as {@code jmeter -g results -o dir}. */
    private void report(Path results, Path outputDir) throws Exception {
        Files.createDirectories(outputDir);
        JMeterUtils.getJMeterProperties().setProperty("jmeter.reportgenerator.outputdir", outputDir.toString());
        new ReportGenerator(results.toString(), null).generate();
    }

    private static void load(Properties into, Path file) throws IOException {
        if (Files.isRegularFile(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                into.load(in);
            }
        }
    }
}
