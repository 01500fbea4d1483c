package dev.jobqueue.views;

import org.jspecify.annotations.Nullable;

/**
 * A JSON text (a payload, a result), maybe shortened.
 *
 * @param length its full length in characters
 * @param preview its start; {@code null} when previews are off or the value is hidden
 * @param truncated whether the preview is shorter than the text
 */
public record Text(long length, @Nullable String preview, boolean truncated) {

}
