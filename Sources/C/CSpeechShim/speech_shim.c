// See include/speech_shim.h.
#include "speech_shim.h"
#include <espeak-ng/speak_lib.h>
#include <stdlib.h>
#include <string.h>

// The buffer the synthesis callback appends to while fermata_speech_render runs (one caller at a time).
static int16_t *collected;
static size_t collected_count;
static size_t collected_capacity;
static int collect_failed;

static int collect(short *wav, int count, espeak_EVENT *events) {
    (void)events;
    if (wav == NULL || count <= 0) return 0;
    if (collected_count + (size_t)count > collected_capacity) {
        size_t capacity = collected_capacity ? collected_capacity * 2 : 65536;
        while (capacity < collected_count + (size_t)count) capacity *= 2;
        int16_t *grown = realloc(collected, capacity * sizeof(int16_t));
        if (grown == NULL) { collect_failed = 1; return 1; }
        collected = grown;
        collected_capacity = capacity;
    }
    memcpy(collected + collected_count, wav, (size_t)count * sizeof(int16_t));
    collected_count += (size_t)count;
    return 0;
}

int fermata_speech_open(const char *voice, int words_per_minute) {
    int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, NULL, 0);
    if (rate <= 0) return -1;
    espeak_SetSynthCallback(collect);
    if (voice && espeak_SetVoiceByName(voice) != EE_OK) return -2;
    if (words_per_minute > 0) espeak_SetParameter(espeakRATE, words_per_minute, 0);
    return rate;
}

size_t fermata_speech_render(const char *text, int16_t **samples) {
    collected = NULL;
    collected_count = 0;
    collected_capacity = 0;
    collect_failed = 0;
    espeak_ERROR error = espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
    if (error == EE_OK) error = espeak_Synchronize();
    if (error != EE_OK || collect_failed || collected_count == 0) {
        free(collected);
        *samples = NULL;
        return 0;
    }
    *samples = collected;
    return collected_count;
}

void fermata_speech_free(int16_t *samples) { free(samples); }
