// Latencies (HdrHistogram) against known distributions: percentiles compared with the exact nearest-rank values of the
// sorted samples, within 10^-3 (3 significant digits); intervals taken from a Recorder while another thread records
// add up to every value recorded; the SVG chart is well-formed XML with one bar per run and one line per latency run.
using System.Xml.Linq;
using Resp.benchmark;

namespace Garnet.client.test;

[TestFixture]
public class LatenciesTests
{
    private static readonly double[] Percentiles = [0.001, 1, 10, 50, 75, 90, 99, 99.9, 99.99, 100];

    private static long Exact(long[] sorted, double p) =>
        sorted[Math.Max(1, (long)Math.Ceiling(p / 100.0 * sorted.Length)) - 1];

    private static void CheckAgainstExact(long[] samples)
    {
        var h = Latencies.NewHistogram();
        foreach (long v in samples) h.RecordValue(Latencies.Clamp(v));
        var sorted = samples.Select(Latencies.Clamp).ToArray();
        Array.Sort(sorted);
        Assert.That(h.TotalCount, Is.EqualTo(samples.Length));
        var summary = LatencySummary.From(h);
        Assert.That(summary.Mean, Is.EqualTo(sorted.Average(v => (double)v)).Within(0.1).Percent);
        Assert.That((double)summary.Max, Is.EqualTo((double)sorted[^1]).Within(Latencies.RelativeErrorBound * 100).Percent);
        foreach (double p in Percentiles)
        {
            long exact = Exact(sorted, p), reported = Latencies.Percentile(h, p);
            double error = Math.Abs(reported - exact) / (double)exact;
            Assert.That(error, Is.LessThanOrEqualTo(Latencies.RelativeErrorBound), $"p{p}: exact {exact}, reported {reported}");
        }
    }

    [Test]
    public void UniformSamplesMatchSortedPercentiles()
    {
        var rng = new Random(12345);
        var samples = new long[1_000_000];
        for (int i = 0; i < samples.Length; i++) samples[i] = rng.NextInt64(1, 10_000_000);
        CheckAgainstExact(samples);
    }

    [Test]
    public void ExponentialSamplesMatchSortedPercentiles()
    {
        var rng = new Random(777);
        var samples = new long[1_000_000];
        for (int i = 0; i < samples.Length; i++) samples[i] = 1 + (long)(-Math.Log(1.0 - rng.NextDouble()) * 50_000);
        CheckAgainstExact(samples);
    }

    [Test]
    public void OutOfRangeValuesAreClampedNotThrown()
    {
        var h = Latencies.NewHistogram();
        h.RecordValue(Latencies.Clamp(-5));
        h.RecordValue(Latencies.Clamp(long.MaxValue));
        Assert.That(h.TotalCount, Is.EqualTo(2));
        // The clamp is far past any real latency; at the top of its range HdrHistogram's buckets are coarser (0.2%).
        Assert.That((double)Latencies.Max(h), Is.EqualTo((double)Latencies.MaxNanos).Within(1).Percent);
        Assert.That(LatencySummary.From(Latencies.NewHistogram()).P99, Is.EqualTo(0), "empty histogram reports 0");
    }

    [Test]
    public void IntervalsTakenWhileRecordingAddUpToEveryValue()
    {
        var recorder = new LatencyRecorder(1, 16);
        const int n = 2_000_000;
        var writer = new Thread(() =>
        {
            for (long i = 0; i < n; i++)
            {
                recorder.SetOp(i, 0);
                recorder.SetSent(i, 0);
                recorder.OnReply(i, false, 1000 + i % 5000);
            }
        });
        var total = Latencies.NewHistogram();
        int intervals = 0;
        writer.Start();
        while (writer.IsAlive)
        {
            var interval = Latencies.NewHistogram();
            recorder.TakeInterval(interval);
            total.Add(interval);
            intervals++;
        }
        writer.Join();
        recorder.TakeInterval(total);
        Assert.That(total.TotalCount, Is.EqualTo(n), $"the sum of {intervals} intervals");
        Assert.That(recorder.PerOp[0].TotalCount, Is.EqualTo(n));
    }

    [Test]
    public void ChartIsWellFormedSvgWithABarPerRunAndALinePerLatencyRun()
    {
        string svg = SvgChart.Render("GET <&> test", [(1, 123_456), (2, 234_567)],
            [(1, new double[] { 10, 20, 50, 100, 300, 1000 }), (2, new double[] { 12, 25, 60, 140, 400, 2000 })]);
        var doc = XDocument.Parse(svg);
        XNamespace ns = "http://www.w3.org/2000/svg";
        Assert.That(doc.Root!.Name, Is.EqualTo(ns + "svg"));
        Assert.That(doc.Descendants(ns + "rect").Count(r => r.Element(ns + "title") is not null), Is.EqualTo(2));
        Assert.That(doc.Descendants(ns + "polyline").Count(), Is.EqualTo(2));
        Assert.That(svg, Does.Contain("GET &lt;&amp;&gt; test"));
        Assert.That(XDocument.Parse(SvgChart.Render("empty", [], [])).Root!.Value, Does.Contain("no results"));
    }
}
