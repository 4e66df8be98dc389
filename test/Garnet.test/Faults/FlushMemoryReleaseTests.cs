// A regression guard: after MSET of 3M pairs with a 256 MB budget and FLUSHALL, 548 MB once stayed resident for 30 s,
// until MEMORY PURGE. Memory a request or a flush took for a while goes back within seconds without MEMORY PURGE: the
// cron's idle decommit (Util/IdleDecommit) asks for a collection again whenever the GC's committed memory grew while
// the server stayed quiet (before, only once per quiet spell, so the flush's memory stayed). Real executable, resident
// memory from /proc.
using System.Diagnostics;
using System.Net.Sockets;
using System.Text;

namespace Garnet.test.Faults;

[TestFixture, Category("Faults"), NonParallelizable]
public class FlushMemoryReleaseTests
{
    private const long MB = 1 << 20;

    private static byte[] MsetRequest(int pairs)
    {
        var sb = new StringBuilder(pairs * 30);
        sb.Append('*').Append(2 * pairs + 1).Append("\r\n$4\r\nMSET\r\n");
        for (int i = 0; i < pairs; i++) sb.Append($"$8\r\nk{i:D7}\r\n$8\r\nv{i:D7}\r\n");
        return Encoding.ASCII.GetBytes(sb.ToString());
    }

    /// <summary>The lowest resident memory seen within seconds.</summary>
    private static long LowestWithin(ServerProcess server, int seconds, long target)
    {
        long lowest = long.MaxValue;
        var sw = Stopwatch.StartNew();
        while (sw.Elapsed.TotalSeconds < seconds && lowest > target)
        {
            lowest = Math.Min(lowest, server.ResidentBytes());
            Thread.Sleep(200);
        }
        return lowest;
    }

    [Test, CancelAfter(180_000)]
    public void MemoryOfAHugeMsetAndOfFlushallGoesBackWithinSeconds()
    {
        string work = Directory.CreateTempSubdirectory("garnet-flushmem-").FullName;
        try
        {
            using var server = new ServerProcess($"--dir \"{Path.Combine(work, "data")}\" --memory 256mb --save \"\"", work);
            long start = server.ResidentBytes();
            using (var s = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 120_000 })
            {
                s.Connect("127.0.0.1", server.Port);
                s.Send(MsetRequest(3_000_000));
                var buf = new byte[16];
                Assert.That(Encoding.ASCII.GetString(buf, 0, s.Receive(buf)), Is.EqualTo("+OK\r\n"));
            }
            long peak = server.ResidentBytes();
            // 3M keys take about 140 MB of index and log; the request's buffers (about 250 MB more) go back.
            long afterMset = LowestWithin(server, 15, start + 250 * MB);
            TestContext.Out.WriteLine($"resident: start {start / MB} MB, after MSET {peak / MB} MB, settled {afterMset / MB} MB");
            Assert.That(afterMset, Is.LessThan(start + 250 * MB), "the MSET's request memory went back");

            using var c = server.Client(60_000);
            RespAssert.Simple(c.Execute("FLUSHALL", "SYNC"), "OK"); // replies once the old keys are deleted
            long flushed = server.ResidentBytes();
            long settled = LowestWithin(server, 15, afterMset + 40 * MB);
            TestContext.Out.WriteLine($"resident: right after FLUSHALL {flushed / MB} MB, 15 s later at most {settled / MB} MB");
            // Before the fix: 459 MB kept (from 206 MB before the FLUSHALL) until MEMORY PURGE.
            Assert.That(settled, Is.LessThan(afterMset + 40 * MB), "the FLUSHALL's memory went back without MEMORY PURGE");
            RespAssert.Integer(c.Execute("DBSIZE"), 0);
        }
        finally { try { Directory.Delete(work, true); } catch { } }
    }
}
