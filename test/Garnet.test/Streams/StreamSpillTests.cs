// A stream whose oldest blocks are in the spill file (--memory 2mb: more than 64 KB of entries spills) behaves as one in
// memory: every read and write is checked against a model of the entries, including changes to spilled blocks (XDEL,
// exact XTRIM, MINID), COPY, DUMP/RESTORE, MEMORY USAGE (which counts spilled bytes), and a restart from a checkpoint.
using Garnet.client;

namespace Garnet.test.Streams;

[TestFixture]
public class StreamSpillTests
{
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-spill-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        try { Directory.Delete(_dir, true); } catch { }
    }

    private static readonly string Pad = new('s', 60);

    private static long Info(RespClient c, string name)
    {
        foreach (var line in c.Execute("INFO", "stats").Text!.Split("\r\n"))
            if (line.StartsWith(name + ":")) return long.Parse(line[(name.Length + 1)..]);
        Assert.Fail("INFO has no " + name);
        return 0;
    }

    private static void Expect(RespClient c, string key, List<int> model, string when)
    {
        Assert.That(c.Execute("XLEN", key).Integer, Is.EqualTo(model.Count), when + ": XLEN");
        var all = c.Execute("XRANGE", key, "-", "+").Elements!.Select(e => e.Elements![0].Text).ToList();
        Assert.That(all, Is.EqualTo(model.Select(i => $"{i}-0").ToList()), when + ": XRANGE - +");
        var rev = c.Execute("XREVRANGE", key, "+", "-").Elements!.Select(e => e.Elements![0].Text).ToList();
        all.Reverse();
        Assert.That(rev, Is.EqualTo(all), when + ": XREVRANGE + -");
        // A window that crosses block boundaries, with the values.
        int from = model[model.Count / 3], to = model[model.Count / 3 + 250];
        var window = c.Execute("XRANGE", key, from.ToString(), to.ToString()).Elements!;
        Assert.That(window.Select(e => e.Elements![1].Elements![3].Text), Is.EqualTo(model.Where(i => i >= from && i <= to).Select(i => i.ToString())), when + ": values");
        var first = c.Execute("XINFO", "STREAM", key).Elements!;
        int at = Array.FindIndex(first, e => e.Text == "first-entry");
        Assert.That(first[at + 1].Elements![0].Text, Is.EqualTo($"{model[0]}-0"), when + ": first-entry");
    }

    [Test]
    public void SpilledStreamReadsWritesCopiesDumpsAndRestarts()
    {
        var model = new List<int>();
        using (var server = new TestServer(o => { o.Memory = "2mb"; o.Save = "3600 1"; }, _dir))
        using (var c = server.Client())
        {
            for (int start = 1; start <= 10_000; start += 500)
            {
                for (int i = start; i < start + 500; i++) c.Send("XADD", "sp", $"{i}-0", "f", Pad, "n", i.ToString());
                for (int i = start; i < start + 500; i++) Assert.That(c.Read().IsError, Is.False);
            }
            model.AddRange(Enumerable.Range(1, 10_000));
            Assert.That(Info(c, "stream_spill_bytes"), Is.GreaterThan(400_000), "the oldest blocks were spilled");
            Assert.That(c.Execute("MEMORY", "USAGE", "sp").Integer, Is.GreaterThan(10_000L * 60), "MEMORY USAGE counts spilled bytes");
            long reads = Info(c, "stream_spill_reads");
            Expect(c, "sp", model, "after XADD");
            Assert.That(Info(c, "stream_spill_reads"), Is.GreaterThan(reads), "reads came from the spill file");

            // Changes to spilled blocks: XDEL inside, an exact trim into a block, MINID.
            Assert.That(c.Execute("XDEL", "sp", "20-0", "2000-0", "2001-0", "5000-0").Integer, Is.EqualTo(4));
            model.RemoveAll(i => i is 20 or 2000 or 2001 or 5000);
            Assert.That(c.Execute("XTRIM", "sp", "MAXLEN", (model.Count - 150).ToString()).Integer, Is.EqualTo(150));
            model.RemoveRange(0, 150);
            Assert.That(c.Execute("XTRIM", "sp", "MINID", "1000-0").Integer, Is.EqualTo(model.Count(i => i < 1000)));
            model.RemoveAll(i => i < 1000);
            Assert.That(c.Execute("XDEL", "sp", "1000-0").Integer, Is.EqualTo(1), "the stream's first entry, in a spilled block");
            model.Remove(1000);
            Expect(c, "sp", model, "after XDEL/XTRIM");
            for (int i = 10_001; i <= 12_000; i++) c.Send("XADD", "sp", $"{i}-0", "f", Pad, "n", i.ToString());
            for (int i = 10_001; i <= 12_000; i++) Assert.That(c.Read().IsError, Is.False);
            model.AddRange(Enumerable.Range(10_001, 2000));
            Expect(c, "sp", model, "after more XADDs");

            // COPY shares the spilled blocks; DUMP/RESTORE reads them back into a new stream.
            Assert.That(c.Execute("COPY", "sp", "sp:copy").Integer, Is.EqualTo(1));
            Assert.That(c.Execute("XADD", "sp:copy", "20000-0", "f", "copy", "n", "20000").IsError, Is.False);
            Expect(c, "sp", model, "the original after COPY");
            Expect(c, "sp:copy", [.. model, 20000], "the copy");
            var dump = c.Execute("DUMP", "sp");
            Assert.That(c.Execute("RESTORE", "sp:restored", "0", dump.Bytes!).Text, Is.EqualTo("OK"));
            Expect(c, "sp:restored", model, "restored");
            Assert.That(c.Execute("DEL", "sp:copy", "sp:restored").Integer, Is.EqualTo(2));
            Expect(c, "sp", model, "after DEL of the copies");
        }
        using (var server = new TestServer(o => o.Memory = "2mb", _dir))
        using (var c = server.Client())
        {
            Expect(c, "sp", model, "after restart");
            Assert.That(c.Execute("XADD", "sp", "30000-0", "f", "x", "n", "30000").IsError, Is.False);
        }
    }
}
