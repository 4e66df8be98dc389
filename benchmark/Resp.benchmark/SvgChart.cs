// SvgChart: draws a benchmark's results as one self-contained SVG file (--chart FILE): throughput per thread count as
// bars and, in online mode, the latency percentiles of each run as lines on a log scale. No dependency: the SVG is
// written as text.
// Invariants: the file is valid standalone SVG (XML-escaped text, no external references); an empty result list
// still gives a readable chart saying so; numbers are written with the invariant culture.
using System.Globalization;
using System.Text;

namespace Resp.benchmark;

public static class SvgChart
{
    private const int PanelWidth = 460, PanelHeight = 300, Margin = 60, Top = 50;
    private static readonly string[] Colors = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4b5563"];
    public static readonly string[] PercentileNames = ["p50", "p90", "p99", "p99.9", "p99.99", "max"];

    public static void Write(string path, BenchmarkSettings s, IReadOnlyList<OfflineRunResult> offline, IReadOnlyList<OnlineRunResult> online) =>
        File.WriteAllText(path, Render(Title(s), offline.Select(r => (r.Threads, r.OpsPerSecond)).Concat(online.Select(r => (r.Threads, r.OpsPerSecond))).ToList(),
            online.Select(r => (r.Threads, Percentiles(r.All))).ToList()));

    public static string Title(BenchmarkSettings s) =>
        $"Resp.benchmark {(s.Online ? "online " + string.Join(", ", s.WorkloadOps.Select((o, i) => $"{o} {s.WorkloadPercents[i]}%")) : "offline " + s.Op)}" +
        $" against {s.Target}, batch {s.BatchSize}, dbsize {s.DbSize}";

    public static double[] Percentiles(LatencySummary l) =>
        [l.P50 / 1000.0, l.P90 / 1000.0, l.P99 / 1000.0, l.P999 / 1000.0, l.P9999 / 1000.0, l.Max / 1000.0];

    /// <summary>The chart: one bar per run (threads, ops/s) and, when given, one latency line per run (microseconds per percentile).</summary>
    public static string Render(string title, IReadOnlyList<(int Threads, double OpsPerSecond)> throughput,
        IReadOnlyList<(int Threads, double[] Micros)> latency)
    {
        int panels = latency.Count > 0 ? 2 : 1;
        int width = panels * (PanelWidth + Margin) + Margin, height = Top + PanelHeight + 70;
        var sb = new StringBuilder();
        sb.Append($"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n");
        sb.Append($"<rect width=\"{width}\" height=\"{height}\" fill=\"white\"/>\n");
        Text(sb, width / 2.0, 22, title, "middle", 14, "bold");
        if (throughput.Count == 0) Text(sb, width / 2.0, height / 2.0, "no results", "middle");
        else Bars(sb, Margin, throughput);
        if (latency.Count > 0) Lines(sb, 2 * Margin + PanelWidth, latency);
        sb.Append("</svg>\n");
        return sb.ToString();
    }

    private static void Bars(StringBuilder sb, double x0, IReadOnlyList<(int Threads, double OpsPerSecond)> runs)
    {
        double max = NiceCeiling(runs.Max(r => r.OpsPerSecond));
        Axes(sb, x0, "Throughput (ops/s)", "threads");
        for (int i = 0; i <= 4; i++)
        {
            double v = max * i / 4, y = Y(v / max);
            Line(sb, x0 - 4, y, x0 + PanelWidth, y, "#e5e7eb");
            Text(sb, x0 - 6, y + 4, Short(v), "end");
        }
        double slot = PanelWidth / (double)runs.Count, bar = Math.Min(60, slot * 0.6);
        for (int i = 0; i < runs.Count; i++)
        {
            double cx = x0 + slot * (i + 0.5), y = Y(runs[i].OpsPerSecond / max);
            sb.Append(F($"<rect x=\"{cx - bar / 2}\" y=\"{y}\" width=\"{bar}\" height=\"{Top + PanelHeight - y}\" fill=\"{Colors[i % Colors.Length]}\"><title>{runs[i].Threads} thread(s): {runs[i].OpsPerSecond:N0} ops/s</title></rect>\n"));
            Text(sb, cx, y - 4, Short(runs[i].OpsPerSecond), "middle");
            Text(sb, cx, Top + PanelHeight + 16, runs[i].Threads.ToString(CultureInfo.InvariantCulture), "middle");
        }
    }

    private static void Lines(StringBuilder sb, double x0, IReadOnlyList<(int Threads, double[] Micros)> runs)
    {
        double lo = Math.Max(0.1, runs.SelectMany(r => r.Micros).Where(v => v > 0).DefaultIfEmpty(1).Min());
        double hi = Math.Max(lo * 10, runs.SelectMany(r => r.Micros).DefaultIfEmpty(10).Max());
        double dlo = Math.Floor(Math.Log10(lo)), dhi = Math.Ceiling(Math.Log10(hi));
        Axes(sb, x0, "Latency (microseconds, log scale)", "percentile");
        for (double d = dlo; d <= dhi; d++)
        {
            double y = Y((d - dlo) / (dhi - dlo));
            Line(sb, x0 - 4, y, x0 + PanelWidth, y, "#e5e7eb");
            Text(sb, x0 - 6, y + 4, Short(Math.Pow(10, d)), "end");
        }
        double step = PanelWidth / (double)(PercentileNames.Length - 1);
        for (int p = 0; p < PercentileNames.Length; p++) Text(sb, x0 + p * step, Top + PanelHeight + 16, PercentileNames[p], "middle");
        for (int i = 0; i < runs.Count; i++)
        {
            string color = Colors[i % Colors.Length];
            var points = runs[i].Micros.Select((v, p) => (x: x0 + p * step, y: Y((Math.Log10(Math.Max(v, Math.Pow(10, dlo))) - dlo) / (dhi - dlo)), v)).ToList();
            sb.Append($"<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{string.Join(" ", points.Select(q => F($"{q.x:0.#},{q.y:0.#}")))}\"/>\n");
            foreach (var q in points) sb.Append(F($"<circle cx=\"{q.x:0.#}\" cy=\"{q.y:0.#}\" r=\"3\" fill=\"{color}\"><title>{runs[i].Threads} thread(s): {q.v:0.###} us</title></circle>\n"));
            double ly = Top + 14 + i * 16;
            Line(sb, x0 + 10, ly - 4, x0 + 30, ly - 4, color, 2);
            Text(sb, x0 + 34, ly, $"{runs[i].Threads} thread(s)", "start");
        }
    }

    private static void Axes(StringBuilder sb, double x0, string title, string xLabel)
    {
        Text(sb, x0 + PanelWidth / 2.0, Top - 8, title, "middle", 13, "bold");
        Line(sb, x0, Top, x0, Top + PanelHeight, "#111827");
        Line(sb, x0, Top + PanelHeight, x0 + PanelWidth, Top + PanelHeight, "#111827");
        Text(sb, x0 + PanelWidth / 2.0, Top + PanelHeight + 36, xLabel, "middle");
    }

    private static double Y(double fraction) => Top + PanelHeight * (1 - Math.Clamp(fraction, 0, 1));

    private static double NiceCeiling(double v)
    {
        if (v <= 0) return 1;
        double p = Math.Pow(10, Math.Floor(Math.Log10(v)));
        foreach (var m in new[] { 1, 2, 2.5, 5, 10 }) if (m * p >= v) return m * p;
        return 10 * p;
    }

    private static string Short(double v) =>
        v >= 1e6 ? F($"{v / 1e6:0.##}M") : v >= 1e3 ? F($"{v / 1e3:0.##}k") : F($"{v:0.###}");

    private static void Line(StringBuilder sb, double x1, double y1, double x2, double y2, string color, double width = 1) =>
        sb.Append(F($"<line x1=\"{x1:0.#}\" y1=\"{y1:0.#}\" x2=\"{x2:0.#}\" y2=\"{y2:0.#}\" stroke=\"{color}\" stroke-width=\"{width}\"/>\n"));

    private static void Text(StringBuilder sb, double x, double y, string text, string anchor, int size = 12, string weight = "normal") =>
        sb.Append(F($"<text x=\"{x:0.#}\" y=\"{y:0.#}\" text-anchor=\"{anchor}\" font-size=\"{size}\" font-weight=\"{weight}\">{System.Security.SecurityElement.Escape(text)}</text>\n"));

    private static string F(FormattableString s) => s.ToString(CultureInfo.InvariantCulture);
}
