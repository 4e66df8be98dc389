// The spill file gives back the space of blocks no stream refers to (StreamSpillReclaimer): a capped stream written far
// past its cap keeps the file's allocated blocks bounded while every read matches a model; DEL, overwrite, expiry and
// FLUSHALL are reclaimed; RENAME/COPY/MOVE racing with rounds lose nothing; a checkpoint written while rounds free
// space restores exactly; a block whose space was punched reads as an error, never as wrong entries.
// The reclaimer's floor and grace are lowered through StoreHost.SpillReclaimer (grace 0: rounds free what the previous
// round found dead), so no test sleeps for time to pass.
using System.Diagnostics;
using Garnet.client;
using Garnet.server.Storage;

namespace Garnet.test.Streams;

[TestFixture]
public class StreamSpillReclaimTests
{
    private string _dir = null!;

    [SetUp]
    public void NewDir() => _dir = Path.Combine(Path.GetTempPath(), "garnet-reclaim-" + Guid.NewGuid().ToString("N"));

    [TearDown]
    public void RemoveDir()
    {
        try { Directory.Delete(_dir, true); } catch { }
    }

    private static readonly string Pad = new('r', 80);

    private static TestServer Start(string dir, string save = "")
    {
        var server = new TestServer(o => { o.Memory = "2mb"; o.Save = save; }, dir);
        var r = Reclaimer(server);
        r.Floor = 256 << 10;
        r.Grace = TimeSpan.Zero;
        r.PollInterval = TimeSpan.FromMilliseconds(20);
        return server;
    }

    private static StreamSpillReclaimer Reclaimer(TestServer server) => server.Server.Server.Store.SpillReclaimer;

    /// <summary>No background round is ever due (a threshold no test reaches); RunRoundAsync still runs one.</summary>
    private static void OnlyExplicitRounds(TestServer server) => Reclaimer(server).Floor = long.MaxValue / 4;

    private static long Info(RespClient c, string name)
    {
        foreach (var line in c.Execute("INFO", "stats").Text!.Split("\r\n"))
            if (line.StartsWith(name + ":")) return long.Parse(line[(name.Length + 1)..]);
        Assert.Fail("INFO has no " + name);
        return 0;
    }

    /// <summary>Bytes the file system has allocated to the spill file (stat's blocks), as du counts them.</summary>
    private static long Allocated(string dir)
    {
        using var p = Process.Start(new ProcessStartInfo("stat", $"-c %b \"{Path.Combine(dir, "stream-blocks.spill")}\"") { RedirectStandardOutput = true })!;
        string output = p.StandardOutput.ReadToEnd();
        p.WaitForExit();
        return long.Parse(output.Trim()) * 512;
    }

    /// <summary>Waits (at most 20 s) until the background task has run every round that is due.</summary>
    private static void WaitSettled(TestServer server)
    {
        var sw = Stopwatch.StartNew();
        while (!Reclaimer(server).Settled && sw.ElapsedMilliseconds < 20_000) Thread.Sleep(5);
        Assert.That(Reclaimer(server).Settled, Is.True, "the background rounds caught up within 20 s");
    }

    /// <summary>Two rounds: the second frees what the first found dead (grace 0).</summary>
    private static void Reclaim(TestServer server)
    {
        Reclaimer(server).RunRoundAsync().GetAwaiter().GetResult();
        Reclaimer(server).RunRoundAsync().GetAwaiter().GetResult();
    }

    private static void AddAll(RespClient c, string key, IEnumerable<int> ids, string? cap = null)
    {
        int sent = 0;
        foreach (int i in ids)
        {
            if (cap is null) c.Send("XADD", key, $"{i}-0", "f", Pad, "n", i.ToString());
            else c.Send("XADD", key, "MAXLEN", "~", cap, $"{i}-0", "f", Pad, "n", i.ToString());
            sent++;
        }
        for (int k = 0; k < sent; k++)
        {
            var r = c.Read();
            Assert.That(r.IsError, Is.False, r.Text);
        }
    }

    /// <summary>Every entry of key, checked against the IDs it must hold (ascending) and their values.</summary>
    private static void Expect(RespClient c, string key, IReadOnlyList<int> model, string when)
    {
        var all = c.Execute("XRANGE", key, "-", "+");
        Assert.That(all.IsError, Is.False, when + ": " + all.Text);
        var ids = all.Elements!.Select(e => e.Elements![0].Text).ToList();
        Assert.That(ids, Is.EqualTo(model.Select(i => $"{i}-0").ToList()), when + ": XRANGE - +");
        Assert.That(all.Elements!.Select(e => e.Elements![1].Elements![3].Text), Is.EqualTo(model.Select(i => i.ToString())), when + ": values");
        Assert.That(c.Execute("XLEN", key).Integer, Is.EqualTo(model.Count), when + ": XLEN");
    }

    /// <summary>A MAXLEN ~ stream holds a suffix of what was written: the last XLEN IDs.</summary>
    private static List<int> Tail(RespClient c, string key, int lastWritten)
    {
        int n = (int)c.Execute("XLEN", key).Integer;
        return Enumerable.Range(lastWritten - n + 1, n).ToList();
    }

    [Test, CancelAfter(60_000)]
    public void CappedStreamKeepsTheFileBoundedAndReadsRight()
    {
        using var server = Start(_dir);
        using var c = server.Client();
        const int cap = 5000; // ~5000 x 90 bytes = 450 KB, most of it spilled at --memory 2mb
        long peak = 0, threshold = 0;
        int written = 0;
        for (int round = 0; round < 40; round++)
        {
            AddAll(c, "capped", Enumerable.Range(written + 1, 2500), cap.ToString());
            written += 2500;
            peak = Math.Max(peak, Allocated(_dir));
            threshold = Math.Max(threshold, Reclaimer(server).Threshold);
            // The background rounds catch up before the next batch, so the writer runs ahead of them by one batch at
            // most however slow the machine is (on a loaded CI box it had outrun them by a whole round: 3.03 MB).
            WaitSettled(server);
            if (round % 8 == 7) Expect(c, "capped", Tail(c, "capped", written), $"after {written} XADDs");
        }
        long total = Info(c, "stream_spill_bytes");
        long usage = c.Execute("MEMORY", "USAGE", "capped").Integer;
        Assert.That(total, Is.GreaterThan(6_000_000), "the file's length counts every block ever spilled");
        Assert.That(Reclaimer(server).Rounds, Is.GreaterThan(3), "rounds ran in the background while writing");
        // A dead block is freed by the second round that finds it dead (grace 0), and a round is due after a threshold of
        // newly spilled bytes (at least the floor, and a quarter of the log: a round scans the whole log); the writer
        // runs one batch ahead of the rounds: well within four thresholds beyond the live blocks. Without reclaiming the
        // file would hold every block ever spilled (total), twice this bound.
        long bound = 4 * usage + 4 * Math.Max(threshold, 256 << 10);
        Assert.That(peak, Is.LessThan(bound), $"allocated bytes stayed bounded while writing (length {total}, threshold up to {threshold})");
        Assert.That(bound, Is.LessThan(total / 2), "the bound tells reclaiming from keeping every block");
        Reclaim(server);
        long live = Info(c, "stream_spill_live_bytes");
        Assert.That(live, Is.LessThanOrEqualTo(usage), "listed bytes are at most the stream's size");
        Assert.That(Allocated(_dir), Is.LessThan(live + 64 * 1024), "after two rounds only the live blocks are allocated");
        Assert.That(Info(c, "stream_spill_reclaimed_bytes"), Is.GreaterThan(total / 2));
        Expect(c, "capped", Tail(c, "capped", written), "after reclaiming");
        // XDEL, exact trims and MINID into spilled blocks, then reclaim again: still the model.
        var model = Tail(c, "capped", written);
        Assert.That(c.Execute("XDEL", "capped", $"{model[10]}-0", $"{model[1500]}-0").Integer, Is.EqualTo(2));
        model.RemoveAt(1500);
        model.RemoveAt(10);
        Assert.That(c.Execute("XTRIM", "capped", "MAXLEN", (model.Count - 333).ToString()).Integer, Is.EqualTo(333));
        model.RemoveRange(0, 333);
        Reclaim(server);
        Expect(c, "capped", model, "after XDEL/XTRIM and reclaiming");
    }

    [Test, CancelAfter(60_000)]
    public void DeletedOverwrittenExpiredAndFlushedStreamsAreReclaimed()
    {
        using var server = Start(_dir);
        // Only the rounds below: a background round while 'e' waits for active expiry freed 'a', 'b' and 'd' before the
        // checkpoint's hold began (seen once in CI).
        OnlyExplicitRounds(server);
        using var c = server.Client();
        foreach (var key in new[] { "a", "b", "d", "e", "keep" }) AddAll(c, key, Enumerable.Range(1, 4000));
        Reclaim(server);
        long all = Info(c, "stream_spill_live_bytes");
        Assert.That(all, Is.GreaterThan(5 * 250_000), "five spilled streams");
        Assert.That(c.Execute("DEL", "a").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("SET", "b", "now a string").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("UNLINK", "d").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("PEXPIRE", "e", "1").Integer, Is.EqualTo(1));
        // An expired key counts (and its blocks stay) until it is deleted: by active expiry, within a few ticks.
        for (int i = 0; i < 2000 && c.Execute("DBSIZE").Integer != 2; i++) Thread.Sleep(10);
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(2), "'e' was deleted by active expiry");
        using (server.Server.Server.Store.StreamSpill.HoldForCheckpoint()) // as a checkpoint being written does
        {
            Reclaim(server);
            Assert.That(Info(c, "stream_spill_live_bytes"), Is.EqualTo(all), "nothing is freed while a checkpoint holds the file");
        }
        Reclaim(server);
        long one = Info(c, "stream_spill_live_bytes");
        Assert.That(one, Is.LessThan(all / 5 + 64 * 1024).And.GreaterThan(all / 5 - 64 * 1024), "only 'keep' is left");
        Assert.That(Allocated(_dir), Is.LessThan(one + 64 * 1024));
        Expect(c, "keep", Enumerable.Range(1, 4000).ToList(), "the stream kept");
        Assert.That(c.Execute("FLUSHALL", "SYNC").Text, Is.EqualTo("OK"));
        server.Server.Server.Store.PurgeCompletion.Wait();
        Reclaim(server);
        Assert.That(Info(c, "stream_spill_live_bytes"), Is.EqualTo(0), "FLUSHALL: nothing referenced");
        Assert.That(Allocated(_dir), Is.LessThan(64 * 1024));
    }

    [Test, CancelAfter(60_000)]
    public void RenameCopyAndMoveDuringRoundsLoseNothing()
    {
        using var server = Start(_dir);
        using var c = server.Client();
        var models = new Dictionary<string, List<int>>();
        var rounds = new CancellationTokenSource();
        var reclaimer = Reclaimer(server);
        long freed = 0;
        var loop = Task.Run(async () =>
        {
            while (!rounds.IsCancellationRequested) freed += await reclaimer.RunRoundAsync();
        });
        // Small streams ahead of the big ones in the log: a round's scan takes a while, so moves land inside it.
        for (int i = 0; i < 3000; i++) c.Send("XADD", $"filler{i}", "*", "f", "v");
        for (int i = 0; i < 3000; i++) Assert.That(c.Read().IsError, Is.False);
        int next = 1;
        for (int step = 0; step < 24; step++)
        {
            string key = $"s{step % 3}";
            if (!models.TryGetValue(key, out var m)) models[key] = m = [];
            AddAll(c, key, Enumerable.Range(next, 700), "2000");
            m.AddRange(Enumerable.Range(next, 700));
            next += 700;
            int n = (int)c.Execute("XLEN", key).Integer;
            m.RemoveRange(0, m.Count - n);
            switch (step % 4)
            {
                case 0:
                    for (int i = 0; i < 50; i++)
                    {
                        c.Send("RENAME", key, key + ":r");
                        c.Send("RENAME", key + ":r", key);
                    }
                    for (int i = 0; i < 100; i++) Assert.That(c.Read().Text, Is.EqualTo("OK"));
                    break;
                case 1:
                    Assert.That(c.Execute("COPY", key, $"copy{step}").Integer, Is.EqualTo(1));
                    models[$"copy{step}"] = [.. m];
                    break;
                case 2:
                    for (int i = 0; i < 25; i++)
                    {
                        c.Send("MOVE", key, "1");
                        c.Send("SELECT", "1");
                        c.Send("MOVE", key, "0");
                        c.Send("SELECT", "0");
                    }
                    for (int i = 0; i < 25; i++)
                    {
                        Assert.That(c.Read().Integer, Is.EqualTo(1));
                        Assert.That(c.Read().Text, Is.EqualTo("OK"));
                        Assert.That(c.Read().Integer, Is.EqualTo(1));
                        Assert.That(c.Read().Text, Is.EqualTo("OK"));
                    }
                    break;
                default:
                    for (int i = 0; i < 50; i++)
                    {
                        c.Send("RENAMENX", key, key + ":n");
                        c.Send("RENAME", key + ":n", key);
                    }
                    for (int i = 0; i < 50; i++)
                    {
                        Assert.That(c.Read().Integer, Is.EqualTo(1));
                        Assert.That(c.Read().Text, Is.EqualTo("OK"));
                    }
                    if (models.ContainsKey($"copy{step - 2}")) Assert.That(c.Execute("DEL", $"copy{step - 2}").Integer, Is.EqualTo(1));
                    models.Remove($"copy{step - 2}");
                    break;
            }
        }
        rounds.Cancel();
        loop.Wait();
        Reclaim(server);
        Assert.That(freed + Info(c, "stream_spill_reclaimed_bytes"), Is.GreaterThan(0), "rounds freed space meanwhile");
        foreach (var (key, m) in models) Expect(c, key, m, key);
    }

    [Test, CancelAfter(60_000)]
    public void MovesInsideARoundsScanLoseNothing()
    {
        using var server = Start(_dir);
        using var c = server.Client();
        using var other = server.Client();
        var reclaimer = Reclaimer(server);
        var model = Enumerable.Range(1, 4000).ToList();
        AddAll(c, "m", model);
        OnlyExplicitRounds(server); // only the rounds below
        // Each round's scan starts after the stream changed keys (its new record is past the scan's end, its old one gone).
        var moves = new Queue<string[]>([
            ["RENAME", "m", "m2"], ["RENAME", "m2", "m"],
            ["COPY", "m", "m3"], ["DEL", "m"], ["RENAMENX", "m3", "m"], ["MOVE", "m", "1"],
            ["SELECT", "1"], ["MOVE", "m", "0"], ["SELECT", "0"], ["RENAME", "m", "m4"], ["RENAME", "m4", "m"]]);
        reclaimer.BeforeScan = () =>
        {
            if (moves.Count > 0) Assert.That(other.Execute(moves.Dequeue()).IsError, Is.False);
            return Task.CompletedTask;
        };
        while (moves.Count > 0) reclaimer.RunRoundAsync().GetAwaiter().GetResult();
        reclaimer.BeforeScan = null;
        Reclaim(server);
        Expect(c, "m", model, "after the moves");
        Assert.That(c.Execute("DBSIZE").Integer, Is.EqualTo(1));
        // A move that fetched its stream before a round began and writes it afterwards: no round starts meanwhile.
        long discarded = reclaimer.DiscardedRounds, rounds = reclaimer.Rounds;
        using (server.Server.Server.Store.StreamSpill.Moving())
            Assert.That(reclaimer.RunRoundAsync().GetAwaiter().GetResult(), Is.EqualTo(0));
        Assert.That(reclaimer.DiscardedRounds, Is.EqualTo(discarded + 1));
        Assert.That(reclaimer.Rounds, Is.EqualTo(rounds));
    }

    [Test, CancelAfter(60_000)]
    public void CheckpointWhileReclaimingRestoresExactly()
    {
        List<int> model;
        int written = 0;
        using (var server = Start(_dir, save: "3600 1"))
        using (var c = server.Client())
        {
            // Strings ahead of the stream in the log: a checkpoint reaches the stream's version late, while rounds run.
            for (int i = 0; i < 30_000; i++) c.Send("SET", $"str{i}", Pad);
            for (int i = 0; i < 30_000; i++) Assert.That(c.Read().IsError, Is.False);
            var reclaimer = Reclaimer(server);
            var rounds = new CancellationTokenSource();
            var loop = Task.Run(async () =>
            {
                while (!rounds.IsCancellationRequested) await reclaimer.RunRoundAsync();
            });
            int started = 0;
            for (int step = 0; step < 12; step++)
            {
                var r = c.Execute("BGSAVE");
                Assert.That(r.IsError, Is.False, r.Text);
                started++;
                AddAll(c, "cp", Enumerable.Range(written + 1, 1000), "4000"); // while it is written and rounds run
                written += 1000;
                WaitForBgsave(c);
                AddAll(c, "cp", Enumerable.Range(written + 1, 1000), "4000"); // rounds free space between checkpoints
                written += 1000;
            }
            rounds.Cancel();
            loop.Wait();
            Assert.That(started, Is.GreaterThan(2), "checkpoints ran while rounds freed space");
            WaitForBgsave(c);
            Assert.That(c.Execute("INFO", "persistence").Text, Does.Contain("rdb_last_bgsave_status:ok"));
            Assert.That(c.Execute("SAVE").Text, Is.EqualTo("OK"));
            Assert.That(Info(c, "stream_spill_reclaimed_bytes"), Is.GreaterThan(0));
            model = Tail(c, "cp", written);
            Expect(c, "cp", model, "before restart");
        }
        using (var server = Start(_dir))
        using (var c = server.Client())
            Expect(c, "cp", model, "after restart");
    }

    private static void WaitForBgsave(RespClient c)
    {
        // A checkpoint of 30K strings mostly on disk, while rounds rescan the log: up to 40 s.
        Poll.Until(() => !c.Execute("INFO", "persistence").Text!.Contains("rdb_bgsave_in_progress:1"), TimeSpan.FromSeconds(40));
        Assert.That(c.Execute("INFO", "persistence").Text, Does.Contain("rdb_bgsave_in_progress:0"));
        Assert.That(c.Execute("INFO", "persistence").Text, Does.Contain("rdb_last_bgsave_status:ok"), "every checkpoint succeeded");
    }

    [Test, CancelAfter(30_000)]
    public void APunchedBlockReadsAsAnErrorNotAsWrongEntries()
    {
        using var server = Start(_dir);
        using var c = server.Client();
        AddAll(c, "p", Enumerable.Range(1, 4000));
        long length = Info(c, "stream_spill_bytes");
        Assert.That(length, Is.GreaterThan(100_000));
        using (var p = Process.Start("fallocate", $"--punch-hole --keep-size --offset 0 --length {length / 4096 * 4096} \"{Path.Combine(_dir, "stream-blocks.spill")}\""))
        {
            p.WaitForExit();
            Assert.That(p.ExitCode, Is.EqualTo(0));
        }
        var r = c.Execute("XRANGE", "p", "-", "+");
        Assert.That(r.IsError, Is.True, "zeros must not decode as entries");
        Assert.That(c.Execute("XLEN", "p").Integer, Is.EqualTo(4000), "metadata reads are unaffected");
        var last = c.Execute("XREVRANGE", "p", "+", "-", "COUNT", "1");
        Assert.That(last.Elements![0].Elements![0].Text, Is.EqualTo("4000-0"), "the block in memory is unaffected");
    }
}
