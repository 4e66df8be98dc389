// KeyEvents: what a connection's commands announce about keys. Keyspace notifications (Redis's notifyKeyspaceEvent,
// as notify-keyspace-events selects them), WATCHes broken and tracking clients told when a key changes, and the events
// the storage session reports itself (a key created, a key found expired on access).
// Invariants: off, a notification costs one volatile read of the setting; events are published after the change, on
// the connection's own thread, with this connection as the sender (its own copy follows its reply: PendingPushes).
using Garnet.server.PubSub;

namespace Garnet.server.Session;

internal sealed class KeyEvents(RespServerSession session) : Storage.IKeyEventSink
{
    private ServerSettings Settings => session.Settings;

    /// <summary>Publishes evt for key (in db, default the selected one) when notify-keyspace-events has cls.</summary>
    public void Notify(NotifyClass cls, ReadOnlySpan<byte> evt, ReadOnlySpan<byte> key, int db = -1)
    {
        var on = (NotifyClass)Settings.NotifyKeyspaceEvents;
        if ((on & cls) == 0) return;
        KeyspaceEvents.Publish(session.Server.PubSub, on, evt, key, db < 0 ? session.Database : db, session);
    }

    /// <summary>Whether events of cls are on now (for work done only to announce something).</summary>
    public bool On(NotifyClass cls) => (Settings.NotifyKeyspaceEvents & (int)cls) != 0;

    /// <summary>key of db was changed by this client (called under the key's lock).</summary>
    public void KeyChanged(int db, ReadOnlySpan<byte> key)
    {
        var server = session.Server;
        server.Watches.Touch(db, key);
        if (server.Tracking.Active) server.Tracking.Invalidate(session, key);
    }

    // Tracking clients are told when a key expires, as Redis tells them: the lazy-expiry path runs while either is on.
    int Storage.IKeyEventSink.NotifyFlags => Settings.NotifyKeyspaceEvents | (session.Server.Tracking.Active ? (int)NotifyClass.Expired : 0);

    void Storage.IKeyEventSink.KeyCreated(ReadOnlySpan<byte> key, int db) => Notify(NotifyClass.New, "new"u8, key, db);

    void Storage.IKeyEventSink.KeyExpired(ReadOnlySpan<byte> key, int db)
    {
        Notify(NotifyClass.Expired, "expired"u8, key, db);
        if (session.Server.Tracking.Active) session.Server.Tracking.Invalidate(null, key);
    }
}
