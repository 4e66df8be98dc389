// SnapshotPoint: a consistent cut of the store (KVStore.TakeSnapshotPointAsync). Every record in [BeginAddress,
// Address) is immutable and on the device; the newest record of each key below Address is its value at the cut.
namespace Garnet.storage.Store;

/// <param name="Version">Snapshot number (1, 2, ...) within this store instance.</param>
/// <param name="Address">Log address of the cut (a page boundary): records below it form the snapshot.</param>
/// <param name="BeginAddress">Where the log started at the cut.</param>
/// <param name="LiveKeys">LiveKeyCount at the cut.</param>
/// <param name="ObjectLogAddress">Object log bytes written by then (serialized objects of flushed pages).</param>
/// <param name="Time">When the cut was taken.</param>
public readonly record struct SnapshotPoint(long Version, long Address, long BeginAddress, long LiveKeys, long ObjectLogAddress, DateTimeOffset Time);
