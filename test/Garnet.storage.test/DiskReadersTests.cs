using Garnet.storage.Devices;
using Microsoft.Win32.SafeHandles;

namespace Garnet.storage.test;

/// <summary>Both read engines: right bytes at any offset, more reads than the depth, a continuation that blocks on another read.</summary>
[TestFixture]
public class DiskReadersTests
{
    private static DiskReaders Make(DiskReadMode mode, int depth)
    {
        if (mode == DiskReadMode.IoUring)
        {
            try { return new DiskReaders(depth, mode); }
            catch (NotSupportedException ex) { Assert.Ignore(ex.Message); }
        }
        return new DiskReaders(depth, mode);
    }

    private static (string path, byte[] data) File1M()
    {
        var path = Path.Combine(Directory.CreateTempSubdirectory("garnet-readers-").FullName, "f");
        var data = new byte[1 << 20];
        new Random(11).NextBytes(data);
        File.WriteAllBytes(path, data);
        return (path, data);
    }

    [Test]
    public async Task ManyReadsBeyondTheDepthReturnTheirBytes([Values(DiskReadMode.IoUring, DiskReadMode.Threads)] DiskReadMode mode)
    {
        var (path, data) = File1M();
        try
        {
            using var readers = Make(mode, depth: 4);
            Assert.That(readers.Engine, Is.EqualTo(mode == DiskReadMode.IoUring ? "io_uring" : "threads"));
            using SafeFileHandle h = File.OpenHandle(path);
            var rnd = new Random(5);
            var reads = Enumerable.Range(0, 500).Select(_ =>
            {
                long offset = rnd.Next(0, data.Length - 100);
                int length = rnd.Next(1, 5000);
                var buffer = new byte[length];
                return (offset, buffer, task: readers.ReadAsync(h, buffer, offset, shortContinuation: true));
            }).ToList();
            await Task.WhenAll(reads.Select(r => r.task));
            foreach (var (offset, buffer, task) in reads)
            {
                int expected = (int)Math.Min(buffer.Length, data.Length - offset);
                Assert.That(task.Result, Is.EqualTo(expected));
                Assert.That(buffer.AsSpan(0, expected).SequenceEqual(data.AsSpan((int)offset, expected)), Is.True, $"at {offset}");
            }
            Assert.That(readers.Reads, Is.EqualTo(500));
            Assert.That(await readers.ReadAsync(h, new byte[10], data.Length, shortContinuation: true), Is.EqualTo(0), "past the end: nothing");
        }
        finally { Directory.Delete(Path.GetDirectoryName(path)!, true); }
    }

    [Test, CancelAfter(30_000)]
    public async Task ContinuationThatWaitsForAnotherReadDoesNotStopTheReader([Values(DiskReadMode.IoUring, DiskReadMode.Threads)] DiskReadMode mode)
    {
        var (path, data) = File1M();
        try
        {
            using var readers = Make(mode, depth: 2);
            using SafeFileHandle h = File.OpenHandle(path);
            var first = new byte[8];
            await readers.ReadAsync(h, first, 100).ConfigureAwait(false);
            // Here, after the await, code blocks on a second read (as compaction or a test may): the reader must still serve it.
            var second = new byte[8];
            Assert.That(readers.ReadAsync(h, second, 200).Wait(TimeSpan.FromSeconds(10)), Is.True, "the second read completed");
            Assert.That(second, Is.EqualTo(data.AsSpan(200, 8).ToArray()));
            Assert.That(first, Is.EqualTo(data.AsSpan(100, 8).ToArray()));
        }
        finally { Directory.Delete(Path.GetDirectoryName(path)!, true); }
    }

    [Test]
    public void AfterDisposeReadsFail([Values(DiskReadMode.IoUring, DiskReadMode.Threads)] DiskReadMode mode)
    {
        var (path, _) = File1M();
        try
        {
            var readers = Make(mode, depth: 2);
            using SafeFileHandle h = File.OpenHandle(path);
            Assert.That(readers.ReadAsync(h, new byte[4], 0, shortContinuation: true).Result, Is.EqualTo(4));
            readers.Dispose();
            Assert.That(() => readers.ReadAsync(h, new byte[4], 0, shortContinuation: true).GetAwaiter().GetResult(), Throws.InstanceOf<ObjectDisposedException>());
        }
        finally { Directory.Delete(Path.GetDirectoryName(path)!, true); }
    }

    [Test]
    public async Task UnbufferedDeviceReadsTheBytesWritten([Values(DiskReadMode.IoUring, DiskReadMode.Threads)] DiskReadMode mode)
    {
        var dir = Directory.CreateTempSubdirectory("garnet-readers-dev-").FullName;
        try
        {
            using var readers = Make(mode, depth: 8);
            using var device = new SegmentedFileDevice(dir, "log", 16, unbuffered: true, readers);
            const int page = 8192;
            using var frame = new DeviceTests.AlignedPage(page);
            var expected = new byte[4 * page];
            new Random(3).NextBytes(expected);
            for (int p = 0; p < 4; p++)
            {
                expected.AsSpan(p * page, page).CopyTo(frame.Span);
                await device.WriteAsync(p * (long)page, frame.Memory);
            }
            foreach (var (offset, length) in new[] { (0, 1), (7, 513), (4090, 20), (page - 3, 3), (100, page - 100) })
                for (int p = 0; p < 4; p++)
                {
                    var buffer = new byte[length];
                    int n = await device.ReadAsync(p * (long)page + offset, buffer, shortContinuation: true);
                    Assert.That(n, Is.EqualTo(length));
                    Assert.That(buffer, Is.EqualTo(expected.AsSpan(p * page + offset, length).ToArray()), $"page {p} offset {offset}");
                }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }
}
