namespace Garnet.Options;

/// <summary>An invalid option: the message is one line naming the option and what is allowed.</summary>
public sealed class OptionsException(string message) : Exception(message);
