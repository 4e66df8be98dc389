// CollectionCommand: what the handlers of every collection family share: an ObjectOperation given as a function on one
// collection type (CollectionOp), running it on a key (a write through UpdateObject; a read through ReadObject, counted
// as a key lookup) with its error written, copies of the arguments, and the keyspace events of a change (Notify).
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
    public static bool Run(CommandContext s, ReadOnlySpan<byte> key, ObjectOperation op, bool write)
    {
        if (write) s.Storage.UpdateObject(key, op);
        else
        {
            s.Storage.ReadObject(key, op);
            s.CountKeyLookup(op.Status.IsFound() && op.Error is null, key);
        }
        if (op.Error is null) return true;
        s.WriteError(op.Error);
        return false;
    }

    /// <summary>Redis's events after a write that changed key: evt (of class cls), then "del" when the write emptied the
    /// collection (the engine deleted the key).</summary>
    public static void Notify(CommandContext s, ObjectOperation op, PubSub.NotifyClass cls, ReadOnlySpan<byte> evt, ReadOnlySpan<byte> key, int db = -1)
    {
        s.Notify(cls, evt, key, db);
        if ((op.Status & Status.Deleted) != 0) s.Notify(PubSub.NotifyClass.Generic, "del"u8, key, db);
    }

    /// <summary>Copies of the arguments from index on.</summary>
    public static byte[][] Args(CommandContext s, int from)
    {
        var a = new byte[s.Argc - from][];
        for (int i = from; i < s.Argc; i++) a[i - from] = s.Arg(i).ToArray();
        return a;
    }
}
