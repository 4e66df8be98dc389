// TrackingState: one client's CLIENT TRACKING settings (Redis's CLIENT_TRACKING_* flags, redirection and BCAST prefixes).
// Invariants: changed only by the client's own thread; other threads (writers sending invalidations) read the fields
// racily, which at worst sends one invalidation too many or too few around the moment tracking is switched.
namespace Garnet.server.Tracking;

public sealed class TrackingState
{
    public volatile bool On;
    public bool Broadcast;
    public bool OptIn;
    public bool OptOut;
    public bool NoLoop;
    /// <summary>CLIENT CACHING YES (OPTIN) or NO (OPTOUT) was given for the next command (or transaction).</summary>
    public bool CachingGiven;
    /// <summary>Client id invalidations go to (0: this client).</summary>
    public long Redirect;
    public volatile bool BrokenRedirect;
    public List<byte[]> Prefixes { get; } = new();

    /// <summary>Whether the keys of a read command that just ran are remembered for this client.</summary>
    public bool RemembersReads => On && !Broadcast && !(OptIn && !CachingGiven) && !(OptOut && CachingGiven);
}
