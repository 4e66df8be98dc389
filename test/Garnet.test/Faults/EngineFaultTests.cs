// Faults inside the storage engine, through the real executable (GARNET_TEST_FAULTS, read once at start): an exception
// while the hash index grows leaves the server serving and every key written readable; an exception inside the
// completion of a read of a record on disk answers that request with an error, at once, and the connection goes on.
// The in-process counterparts: Garnet.storage.test's IndexGrowthFaultTests, FaultContainmentTests.
using System.Diagnostics;
using System.Text;
using System.Text.RegularExpressions;
using Garnet.client;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class EngineFaultTests
{
    private static ServerProcess Start(string work, string faults, string args) =>
        new($"--dir \"{Path.Combine(work, "data")}\" --save \"\" --compaction-interval 0 {args}", work,
            environment: new Dictionary<string, string> { ["GARNET_TEST_FAULTS"] = faults });

    private static string Value(int i) => "v" + i;

    /// <summary>SETs prefix + i to value(i) (default Value(i)) for i in [from, to), pipelined: the replies that are errors
    /// (i, text).</summary>
    private static List<(int i, string error)> Load(RespClient c, string prefix, int from, int to, Func<int, string>? value = null)
    {
        var errors = new List<(int, string)>();
        var batch = new StringBuilder();
        for (int start = from; start < to; start += 1000)
        {
            int end = Math.Min(to, start + 1000);
            batch.Clear();
            for (int i = start; i < end; i++)
            {
                string key = prefix + i, v = (value ?? Value)(i);
                batch.Append($"*3\r\n$3\r\nSET\r\n${key.Length}\r\n{key}\r\n${v.Length}\r\n{v}\r\n");
            }
            c.SendRaw(Encoding.ASCII.GetBytes(batch.ToString()));
            for (int i = start; i < end; i++)
                if (c.Read() is { IsError: true } reply) errors.Add((i, reply.Text!));
        }
        return errors;
    }

    /// <summary>GETs prefix + i for i in [0, count), pipelined: the keys that do not read back as Value(i).</summary>
    private static List<string> Unreadable(RespClient c, string prefix, int count)
    {
        var wrong = new List<string>();
        var batch = new StringBuilder();
        for (int start = 0; start < count; start += 1000)
        {
            int end = Math.Min(count, start + 1000);
            batch.Clear();
            for (int i = start; i < end; i++)
            {
                string key = prefix + i;
                batch.Append($"*2\r\n$3\r\nGET\r\n${key.Length}\r\n{key}\r\n");
            }
            c.SendRaw(Encoding.ASCII.GetBytes(batch.ToString()));
            for (int i = start; i < end; i++)
                if (c.Read().Text != Value(i) && wrong.Count < 20) wrong.Add($"{prefix}{i}");
        }
        return wrong;
    }

    [Test, CancelAfter(300_000)]
    public void AFaultWhileTheIndexGrowsLeavesTheServerServingAndEveryKeyReadable()
    {
        // The index starts at 2^16 buckets and doubles once more than a quarter of them have overflowed (some 400k keys).
        // The first growth fails to start (index-grow) and is asked for again; the split of the next one fails twice half
        // way through a chunk (index-split): undone and done again, by the background splitter or by the SET that needs it.
        string work = Directory.CreateTempSubdirectory("garnet-engine-faults-").FullName;
        try
        {
            using var server = Start(work, "index-grow:1,index-split:2", "--memory 512mb");
            using var c = server.Client(60_000);
            int written = 0;
            while (!(server.Output.Contains("fault injected at index-grow")
                     && Regex.Count(server.Output, "fault injected at index-split") >= 2))
            {
                Assert.That(written, Is.LessThan(2_000_000), "no growth of the index: " + server.Output);
                var errors = Load(c, "g:", written, written + 50_000);
                Assert.That(errors, Is.Empty, "every SET is answered OK while the index grows");
                written += 50_000;
            }
            // Keys written after the growth, then every key read back with its value.
            Assert.That(Load(c, "g:", written, written + 100_000), Is.Empty);
            written += 100_000;
            Assert.That(server.HasExited, Is.False, server.Output);
            Assert.That(server.Output, Does.Contain("the hash index's growth (not started; tried again later)"));
            Assert.That(server.Output, Does.Contain("the hash index's split (the chunk is cleared and split again)"));
            Assert.That(Unreadable(c, "g:", written), Is.Empty, "keys that do not read back");
            RespAssert.Integer(c.Execute("DBSIZE"), written);
            using var other = server.Client();
            RespAssert.Simple(other.Execute("PING"), "PONG");
        }
        finally { try { Directory.Delete(work, true); } catch { } }
    }

    [TestCase("epoll", "auto")]
    [TestCase("sockets", "threads")]
    [CancelAfter(180_000)]
    public void AFaultInsideADiskReadsCompletionAnswersAnErrorAndTheConnectionGoesOn(string network, string diskReads)
    {
        // Every completion of a store op's disk read fails (the point stays armed): a GET of a key on disk is answered
        // with the error at once (not left without a reply); the same connection then serves writes and keys in memory,
        // and further GETs of keys on disk get the same error, each in bound.
        string work = Directory.CreateTempSubdirectory("garnet-engine-faults-").FullName;
        try
        {
            using var server = Start(work, "disk-read-continuation:1000000",
                $"--memory 4mb --network-engine {network} --disk-read-engine {diskReads}");
            using var loader = server.Client(60_000);
            string big = new('x', 300);
            var failed = Load(loader, "d:", 0, 40_000, _ => big); // 12 MB of records: most leave the 4 MB in memory
            Assert.That(failed.Select(f => f.error), Is.All.EqualTo("ERR internal error while running 'set'"),
                "a SET whose key's chain is on disk (rare) fails as the GETs below do");
            var onDisk = Enumerable.Range(1, 10_000).Where(i => i % 1000 == 1).Except(failed.Select(f => f.i)).Take(5).ToList();

            using var c = server.Client(10_000); // the bound: a reply that does not come in 10 s fails the test
            Assert.That(onDisk, Has.Count.EqualTo(5));
            foreach (int i in onDisk)
            {
                var sw = Stopwatch.StartNew();
                RespAssert.Error(c.Execute("GET", "d:" + i), "ERR internal error while running 'get'");
                Assert.That(sw.Elapsed, Is.LessThan(TimeSpan.FromSeconds(5)));
                // The same connection goes on: a write, a read of a key in memory, a ping.
                RespAssert.Simple(c.Execute("SET", "after:" + i, "1"), "OK");
                RespAssert.Bulk(c.Execute("GET", "after:" + i), "1");
                RespAssert.Simple(c.Execute("PING"), "PONG");
            }
            Assert.That(server.Output, Does.Contain("fault injected at disk-read-continuation"));
            Assert.That(server.Output, Does.Contain("a disk read's completion (its operation fails)"));
            Assert.That(server.HasExited, Is.False, server.Output);
        }
        finally { try { Directory.Delete(work, true); } catch { } }
    }
}
