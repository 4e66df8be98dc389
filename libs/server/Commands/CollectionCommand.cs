// CollectionCommand: what the handlers of every collection family share: an ObjectOperation given as a function on one
// collection type (CollectionOp), running it on a key (a write through UpdateObject; a read through ReadObject, counted
// as a key lookup) with its error written, and copies of the arguments.
using Garnet.server.Objects;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;

namespace Garnet.server.Commands;

/// <summary>An operation on a collection of type T given as a function: Apply returns whether it changed it.</summary>
internal sealed class CollectionOp<T>(ObjectKind kind, Func<T, bool> apply, bool creates = false, Action? missing = null, bool touches = true)
    : ObjectOperation where T : CollectionObject
{
    public override ObjectKind Kind => kind;
    public override bool CreatesKey => creates;
    public override bool TouchesKey => touches;
    public override bool Apply(CollectionObject collection) => apply((T)collection);
    public override void Missing() => missing?.Invoke();
}

internal static class CollectionCommand
{
    /// <summary>Runs op on key; false after writing its error (WRONGTYPE, ...).</summary>
    public static bool Run(RespServerSession s, ReadOnlySpan<byte> key, ObjectOperation op, bool write)
    {
        if (write) s.Storage.UpdateObject(key, op);
        else
        {
            s.Storage.ReadObject(key, op);
            s.CountKeyLookup(op.Status.IsFound() && op.Error is null);
        }
        if (op.Error is null) return true;
        s.WriteError(op.Error);
        return false;
    }

    /// <summary>Copies of the arguments from index on.</summary>
    public static byte[][] Args(RespServerSession s, int from)
    {
        var a = new byte[s.Argc - from][];
        for (int i = from; i < s.Argc; i++) a[i - from] = s.Arg(i).ToArray();
        return a;
    }
}
