// IStorageDevice: where log pages go when they leave memory. Addresses are logical log addresses; writes are
// whole pages (sector-aligned offsets and lengths); reads may be any range inside one page.
namespace Garnet.storage.Devices;

public interface IStorageDevice : IDisposable
{
    /// <summary>False for the null device: nothing written can be read back (pure cache mode).</summary>
    bool Persistent { get; }

    int SectorSize { get; }

    ValueTask WriteAsync(long address, ReadOnlyMemory<byte> data);

    /// <summary>
    /// Reads into buffer; returns bytes read (0 when nothing is stored there). With shortContinuation the caller promises
    /// that the code after its await is short and never blocks, so it may run on the disk reader's own thread (the
    /// store's pending reads); otherwise it runs on a thread that may block.
    /// </summary>
    ValueTask<int> ReadAsync(long address, Memory<byte> buffer, bool shortContinuation = false);

    /// <summary>
    /// Starts reading length bytes at address into read's own buffer, without allocating: the bytes land at read.Data and
    /// read's Completed gets how many were read (0 when nothing is stored there), on a reader thread, possibly before this
    /// returns; it must be short and never block (the store's pending operations).
    /// </summary>
    void StartRead(long address, int length, BufferedDeviceRead read);

    /// <summary>Deletes whole segments that lie entirely below address.</summary>
    void TruncateBelow(long address);

    /// <summary>Bytes the device holds on disk now.</summary>
    long SizeOnDisk { get; }
}
