// ObjectLog: where serialized objects go when their page is flushed. An append-only byte space on its own
// segmented device ("obj.N" files); a record on disk holds the address and length of its object's bytes here.
// Invariants:
//  - Space is handed out by one atomic add; a range may cross segment files, so reads and writes are split at
//    segment boundaries here (the device itself never sees a write that spans two segments).
//  - Bytes are written before the log page that refers to them counts as flushed.
using Garnet.storage.Devices;

namespace Garnet.storage.Objects;

public sealed class ObjectLog : IDisposable
{
    private readonly SegmentedFileDevice _device;
    private long _tail;

    public ObjectLog(string directory, int segmentBits, DiskReaders? readers = null)
    {
        _device = new SegmentedFileDevice(directory, "obj", segmentBits, readers: readers);
    }

    public long TailAddress => Interlocked.Read(ref _tail);
    public long SizeOnDisk => _device.SizeOnDisk;

    /// <summary>Reserves length bytes; returns their address.</summary>
    public long Allocate(long length) => Interlocked.Add(ref _tail, length) - length;

    public async ValueTask WriteAsync(long address, ReadOnlyMemory<byte> data)
    {
        while (!data.IsEmpty)
        {
            long inSegment = _device.SegmentSize - (address & (_device.SegmentSize - 1));
            int n = (int)Math.Min(inSegment, data.Length);
            await _device.WriteAsync(address, data[..n]).ConfigureAwait(false);
            address += n;
            data = data[n..];
        }
    }

    /// <summary>Reads exactly buffer.Length bytes at address; false when they are not all there.</summary>
    public async ValueTask<bool> ReadAsync(long address, Memory<byte> buffer)
    {
        while (!buffer.IsEmpty)
        {
            long inSegment = _device.SegmentSize - (address & (_device.SegmentSize - 1));
            int want = (int)Math.Min(inSegment, buffer.Length);
            int n = await _device.ReadAsync(address, buffer[..want]).ConfigureAwait(false);
            if (n <= 0) return false;
            address += n;
            buffer = buffer[n..];
        }
        return true;
    }

    /// <summary>Deletes segment files wholly below address (no record at or above the log's begin refers there).</summary>
    public void TruncateBelow(long address) => _device.TruncateBelow(address);

    public void Dispose() => _device.Dispose();
}
