// InternalErrors: what a client is told when a command or script callback fails with an exception it did not expect.
// Invariant: no .NET runtime text reaches a client (docs/security.md). Only InvalidOperationException, which this server throws
// with texts written for clients ("reply too large"), passes its message on; any other exception (an index out of
// range, a null reference, ...) is a bug, logged in full by the caller, and the client gets no detail.
namespace Garnet.server.Session;

internal static class InternalErrors
{
    /// <summary>The text after "internal error" for ex: ": message" for our own texts, nothing otherwise.</summary>
    public static string Detail(Exception ex) => ex is InvalidOperationException { Message: { Length: > 0 } m } ? ": " + m : "";
}
