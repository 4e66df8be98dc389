// KeyspaceEvents: Redis's keyspace notifications (notify.c). notify-keyspace-events holds the classes to send; an event
// of an enabled class is published through the pub/sub registry as __keyspace@<db>__:<key> -> <event> (K) and
// __keyevent@<db>__:<event> -> <key> (E).
// Invariants:
//  - Off costs one volatile read: RespServerSession.Notify reads ServerSettings.NotifyKeyspaceEvents and returns when the
//    event's class is not in it; the channel names are built only when some subscriber could receive them.
//  - Events are published from the thread of the command (or expiry) that caused them, after the change, in Redis's
//    order for that command; a notification for the session that caused it follows the command's reply.
//  - The parse and the CONFIG GET form are Redis's (keyspaceEventsStringToFlags / keyspaceEventsFlagsToString).
using System.Buffers.Text;
using Garnet.common.Util;
using Garnet.server.Session;

namespace Garnet.server.PubSub;

/// <summary>Redis's NOTIFY_* classes (server.h), with their notify-keyspace-events letters.</summary>
[Flags]
public enum NotifyClass
{
    None = 0,
    Keyspace = 1 << 0,  // K
    Keyevent = 1 << 1,  // E
    Generic = 1 << 2,   // g
    String = 1 << 3,    // $
    List = 1 << 4,      // l
    Set = 1 << 5,       // s
    Hash = 1 << 6,      // h
    ZSet = 1 << 7,      // z
    Expired = 1 << 8,   // x
    Evicted = 1 << 9,   // e
    Stream = 1 << 10,   // t
    KeyMiss = 1 << 11,  // m (not part of A)
    Module = 1 << 13,   // d
    New = 1 << 14,      // n (not part of A)
    /// <summary>A: every class but m and n.</summary>
    All = Generic | String | List | Set | Hash | ZSet | Expired | Evicted | Stream | Module,
}

public static class KeyspaceEvents
{
    /// <summary>Redis's keyspaceEventsStringToFlags: false for a character that is no class.</summary>
    public static bool TryParse(string classes, out NotifyClass flags)
    {
        flags = NotifyClass.None;
        foreach (char c in classes)
        {
            flags |= c switch
            {
                'A' => NotifyClass.All,
                'g' => NotifyClass.Generic,
                '$' => NotifyClass.String,
                'l' => NotifyClass.List,
                's' => NotifyClass.Set,
                'h' => NotifyClass.Hash,
                'z' => NotifyClass.ZSet,
                'x' => NotifyClass.Expired,
                'e' => NotifyClass.Evicted,
                'K' => NotifyClass.Keyspace,
                'E' => NotifyClass.Keyevent,
                't' => NotifyClass.Stream,
                'm' => NotifyClass.KeyMiss,
                'd' => NotifyClass.Module,
                'n' => NotifyClass.New,
                _ => (NotifyClass)(-1),
            };
            if (flags == (NotifyClass)(-1)) return false;
        }
        return true;
    }

    /// <summary>Redis's keyspaceEventsFlagsToString: the canonical form CONFIG GET shows.</summary>
    public static string Format(NotifyClass flags)
    {
        var sb = new System.Text.StringBuilder();
        if ((flags & NotifyClass.All) == NotifyClass.All) sb.Append('A');
        else
        {
            if ((flags & NotifyClass.Generic) != 0) sb.Append('g');
            if ((flags & NotifyClass.String) != 0) sb.Append('$');
            if ((flags & NotifyClass.List) != 0) sb.Append('l');
            if ((flags & NotifyClass.Set) != 0) sb.Append('s');
            if ((flags & NotifyClass.Hash) != 0) sb.Append('h');
            if ((flags & NotifyClass.ZSet) != 0) sb.Append('z');
            if ((flags & NotifyClass.Expired) != 0) sb.Append('x');
            if ((flags & NotifyClass.Evicted) != 0) sb.Append('e');
            if ((flags & NotifyClass.Stream) != 0) sb.Append('t');
            if ((flags & NotifyClass.Module) != 0) sb.Append('d');
            if ((flags & NotifyClass.New) != 0) sb.Append('n');
        }
        if ((flags & NotifyClass.Keyspace) != 0) sb.Append('K');
        if ((flags & NotifyClass.Keyevent) != 0) sb.Append('E');
        if ((flags & NotifyClass.KeyMiss) != 0) sb.Append('m');
        return sb.ToString();
    }

    /// <summary>
    /// Publishes one event of a class that is on (flags: the setting as read by the caller): to __keyspace@db__:key with
    /// K, to __keyevent@db__:event with E. sender: the session whose command caused it (its own copy follows its reply),
    /// or null (expiry).
    /// </summary>
    public static void Publish(PubSubRegistry registry, NotifyClass flags, ReadOnlySpan<byte> evt, ReadOnlySpan<byte> key, int db, RespServerSession? sender)
    {
        if (!registry.HasSubscribers) return;
        if ((flags & NotifyClass.Keyspace) != 0) Publish(registry, "__keyspace@"u8, db, key, evt, sender);
        if ((flags & NotifyClass.Keyevent) != 0) Publish(registry, "__keyevent@"u8, db, evt, key, sender);
    }

    private static void Publish(PubSubRegistry registry, ReadOnlySpan<byte> prefix, int db, ReadOnlySpan<byte> name, ReadOnlySpan<byte> message, RespServerSession? sender)
    {
        int size = prefix.Length + 11 + 3 + name.Length;
        byte[]? rented = null;
        Span<byte> channel = size <= 512 ? stackalloc byte[512] : (rented = LargeBuffers.Rent(size));
        try
        {
            prefix.CopyTo(channel);
            int n = prefix.Length;
            Utf8Formatter.TryFormat(db, channel[n..], out int digits);
            n += digits;
            "__:"u8.CopyTo(channel[n..]);
            n += 3;
            name.CopyTo(channel[n..]);
            n += name.Length;
            var ch = channel[..n];
            registry.Publish(ch, message, sender);
        }
        finally
        {
            if (rented is not null) LargeBuffers.Return(rented);
        }
    }
}
