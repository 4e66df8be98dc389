// KeySpecDefaults: where a table row's key specs come from, in order: the row's own KeySpecs (compact form); Redis 7.2's
// specs for the same full name (RedisKeySpecData, generated); else one spec built from the row's key positions, for
// commands Redis does not have (flags RW update for a write, RO access otherwise; NOT_KEY for channel positions).
// Invariant: a row with no keys at all and no Redis specs gets no spec.
namespace Garnet.server.Commands.KeySpecs;

internal static class KeySpecDefaults
{
    public static KeySpec[] For(CommandDefinition c)
    {
        if (c.KeySpecs is { } own) return KeySpec.Parse(own);
        if (RedisKeySpecData.Specs.TryGetValue(c.FullName, out var redis))
            return KeySpec.Parse(redis, i => RedisKeySpecData.Notes.GetValueOrDefault(c.FullName + "#" + i));
        var flags = c.KeysAreChannels ? KeySpecFlags.NotKey
            : (c.Flags & CommandFlags.Write) != 0 ? KeySpecFlags.RW | KeySpecFlags.Update : KeySpecFlags.RO | KeySpecFlags.Access;
        if (c.KeyNumIndex > 0)
            return [new() { Flags = flags, Begin = BeginSearch.Index, Index = c.KeyNumIndex, Find = FindKeys.KeyNum, KeyNumIdx = 0, FirstKey = 1, KeyStep = 1 }];
        if (c.KeysAfterKeyword is { } kw)
            return [new() { Flags = flags, Begin = BeginSearch.Keyword, Keyword = kw.Keyword, StartFrom = kw.StartFrom, Find = FindKeys.Range, LastKey = -1, KeyStep = 1, Limit = kw.Limit }];
        return c.Keys.HasKeys ? [KeySpec.FromRange(c.Keys, flags)] : [];
    }
}
