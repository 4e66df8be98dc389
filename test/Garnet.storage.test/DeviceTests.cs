using Garnet.storage.Devices;

namespace Garnet.storage.test;

[TestFixture]
public class DeviceTests
{
    [Test]
    public async Task PagesWrittenReadBackAtAnyOffset([Values(false, true)] bool unbuffered)
    {
        var dir = Directory.CreateTempSubdirectory("garnet-dev-").FullName;
        try
        {
            using var device = new SegmentedFileDevice(dir, "log", 16, unbuffered);
            const int page = 8192;
            using var frame = new AlignedPage(page);
            var rnd = new Random(3);
            var expected = new byte[4 * page];
            rnd.NextBytes(expected);
            for (int p = 0; p < 4; p++)
            {
                expected.AsSpan(p * page, page).CopyTo(frame.Span);
                await device.WriteAsync(p * (long)page + (1 << 16) * (p % 2), frame.Memory); // pages in two segments
            }
            TestContext.Out.WriteLine($"unbuffered requested {unbuffered}, in effect {device.IsUnbuffered}");
            if (!unbuffered) Assert.That(device.IsUnbuffered, Is.False);
            foreach (var (offset, length) in new[] { (0, 1), (7, 513), (4090, 20), (page - 3, 3), (100, page - 100) })
                for (int p = 0; p < 4; p++)
                {
                    var buffer = new byte[length];
                    int n = await device.ReadAsync(p * (long)page + (1 << 16) * (p % 2) + offset, buffer);
                    Assert.That(n, Is.EqualTo(length));
                    Assert.That(buffer, Is.EqualTo(expected.AsSpan(p * page + offset, length).ToArray()), $"page {p} offset {offset}");
                }
            // Past the end of what was written: nothing.
            Assert.That(await device.ReadAsync(3L << 16, new byte[16]), Is.EqualTo(0)); // segment 3 was never written
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    /// <summary>A page-aligned native buffer, as the log's frames are.</summary>
    internal sealed unsafe class AlignedPage : System.Buffers.MemoryManager<byte>
    {
        private readonly byte* _p;
        private readonly int _n;
        public AlignedPage(int n) { _n = n; _p = (byte*)System.Runtime.InteropServices.NativeMemory.AlignedAlloc((nuint)n, 4096); }
        public Span<byte> Span => GetSpan();
        public override Span<byte> GetSpan() => new(_p, _n);
        public override System.Buffers.MemoryHandle Pin(int elementIndex = 0) => new(_p + elementIndex);
        public override void Unpin() { }
        protected override void Dispose(bool disposing) => System.Runtime.InteropServices.NativeMemory.AlignedFree(_p);
    }
}
