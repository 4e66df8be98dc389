// Key choice (uniform and Zipf) and option validation.
using Resp.benchmark;

namespace Garnet.client.test;

[TestFixture]
public class KeyChoiceAndSettingsTests
{
    [Test]
    public void UniformCoversTheKeySpaceEvenly()
    {
        var c = new KeyChooser(100, null, 3);
        var counts = new int[100];
        for (int i = 0; i < 1_000_000; i++) counts[c.NextKey()]++;
        // Expected 10,000 each; 5 sigma is 500.
        Assert.That(counts.Min(), Is.GreaterThan(9_500));
        Assert.That(counts.Max(), Is.LessThan(10_500));
    }

    [TestCase(0.5)]
    [TestCase(0.99)]
    public void ZipfFollowsItsDistribution(double theta)
    {
        const long n = 10_000;
        var zipf = new ZipfDistribution(n, theta);
        var c = new KeyChooser(n, zipf, 5);
        const int samples = 2_000_000;
        var counts = new long[n];
        for (int i = 0; i < samples; i++) counts[c.NextKey()]++;
        // Ranks 0 and 1 are exact in the method; within 3% of their probabilities.
        for (int k = 0; k < 2; k++)
            Assert.That(counts[k] / (double)samples, Is.EqualTo(zipf.Probability(k)).Within(3).Percent, $"rank {k}");
        // Higher ranks follow the continuous approximation: the hottest 10% of keys get their share within 5%.
        double expectedTop = Enumerable.Range(0, (int)(n / 10)).Sum(k => zipf.Probability(k));
        Assert.That(counts.Take((int)(n / 10)).Sum() / (double)samples, Is.EqualTo(expectedTop).Within(5).Percent);
        // And the distribution is skewed the right way: rank 0 beats rank 100 beats rank 5000.
        Assert.That(counts[0], Is.GreaterThan(counts[100]));
        Assert.That(counts[100], Is.GreaterThan(counts[5000]));
    }

    [Test]
    public void ZipfSamplesStayInRange()
    {
        foreach (long n in new long[] { 1, 2, 3, 1000 })
        {
            var zipf = new ZipfDistribution(n, 0.99);
            foreach (double u in new[] { 0.0, 1e-12, 0.5, 0.999999, Math.BitDecrement(1.0) })
                Assert.That(zipf.Sample(u), Is.InRange(0, n - 1), $"n={n} u={u}");
        }
    }

    private static BenchmarkSettings Parse(params string[] args)
    {
        var parsed = new CommandLine.Parser(w => w.HelpWriter = null).ParseArguments<Resp.benchmark.Options>(args);
        Assert.That(parsed.Tag, Is.EqualTo(CommandLine.ParserResultType.Parsed), string.Join(' ', args));
        return BenchmarkSettings.From(((CommandLine.Parsed<Resp.benchmark.Options>)parsed).Value);
    }

    [Test]
    public void ModeDependentDefaults()
    {
        var offline = Parse();
        Assert.That(offline.BatchSize, Is.EqualTo(4096));
        Assert.That(offline.Threads, Is.EqualTo(new[] { 1, 2, 4 }));
        Assert.That(offline.Op, Is.EqualTo(OpType.GET));
        var online = Parse("--online", "--op-workload", "get,set,del", "--op-percent", "60,30,10");
        Assert.That(online.BatchSize, Is.EqualTo(1));
        Assert.That(online.WorkloadOps, Is.EqualTo(new[] { OpType.GET, OpType.SET, OpType.DEL }));
        Assert.That(online.WorkloadPercents, Is.EqualTo(new[] { 60, 30, 10 }));
        Assert.That(online.Loader, Is.EqualTo(LoaderType.String));
        Assert.That(Parse("--op", "hget").Loader, Is.EqualTo(LoaderType.Hash));
        Assert.That(Parse("--op", "PING").Loader, Is.EqualTo(LoaderType.None));
    }

    [TestCase("--op", "FLY", "Invalid value for --op: 'FLY'")]
    [TestCase("--op", "3", "Invalid value for --op: '3'")]
    [TestCase("--dbsize", "1000000000", "Invalid value for --keylength: '8'. Allowed: at least 9")]
    [TestCase("--threads", "1,x", "Invalid value for --threads")]
    [TestCase("--threads", "0", "Invalid value for --threads")]
    [TestCase("--zipf-skew", "1", "Invalid value for --zipf-skew")]
    [TestCase("--op-workload", "GET", "need --online")]
    [TestCase("--tls-insecure", null, "--tls-insecure needs --tls")]
    public void BadOptionsAreRefusedWithOneLine(string option, string? value, string message)
    {
        string[] args = value is null ? [option] : [option, value];
        if (option == "--dbsize") args = [.. args, "--keylength", "8"];
        var ex = Assert.Throws<SettingsException>(() => Parse(args))!;
        Assert.That(ex.Message, Does.Contain(message));
    }

    [Test]
    public void WorkloadPercentagesMustMatchAndSumTo100()
    {
        Assert.That(Assert.Throws<SettingsException>(() => Parse("--online", "--op-workload", "GET,SET", "--op-percent", "60,30"))!.Message,
            Does.Contain("sum to 100"));
        Assert.That(Assert.Throws<SettingsException>(() => Parse("--online", "--op-workload", "GET,SET", "--op-percent", "100"))!.Message,
            Does.Contain("1 values for 2 operations"));
        Assert.That(Assert.Throws<SettingsException>(() => Parse("--online", "--op-workload", "GET,SET"))!.Message,
            Does.Contain("needs --op-percent"));
    }
}
