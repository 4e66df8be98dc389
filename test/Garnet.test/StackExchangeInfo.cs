// StackExchangeInfo: the section names of INFO as StackExchange.Redis's IServer.Info() groups them, with its one RESP3
// quirk undone. StackExchange.Redis 2.9 sometimes keeps RESP3's verbatim "txt:" prefix (it depends on where the reply
// falls in its read buffer: the same INFO passed once the reply was one key longer), so "# Server" arrives as a "txt"
// pair of its default group, "miscellaneous". Our bytes are Redis's (InfoTests.StackExchangeRedisReadsInfo checks them
// raw); that one header is the client's to get right. Only that exact pair counts as the Server section.
using StackExchange.Redis;

namespace Garnet.test;

internal static class StackExchangeInfo
{
    public static List<string> SectionNames(IGrouping<string, KeyValuePair<string, string>>[] groups, RedisProtocol protocol)
    {
        var names = groups.Select(g => g.Key).ToList();
        if (protocol == RedisProtocol.Resp3 && !names.Contains("Server")
            && groups.SingleOrDefault(g => g.Key == "miscellaneous") is { } misc && misc.Any(p => p.Key == "txt" && p.Value == "# Server"))
            names.Add("Server");
        return names;
    }
}
