// NullDevice: pure cache mode. Pages leaving memory are dropped; reads find nothing.
namespace Garnet.storage.Devices;

public sealed class NullDevice : IStorageDevice
{
    public bool Persistent => false;
    public int SectorSize => 512;
    public ValueTask WriteAsync(long address, ReadOnlyMemory<byte> data) => ValueTask.CompletedTask;
    public ValueTask<int> ReadAsync(long address, Memory<byte> buffer, bool shortContinuation = false) => ValueTask.FromResult(0);

    public void StartRead(long address, int length, BufferedDeviceRead read) => read.CompleteEmpty();
    public void TruncateBelow(long address) { }
    public long SizeOnDisk => 0;
    public void Dispose() { }
}
