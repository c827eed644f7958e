#include "textflag.h"

// Thirty-two bytes each of ' ' (the largest candidate byte), '\t' and '\n'.
DATA spaces<>+0(SB)/8, $0x2020202020202020
DATA spaces<>+8(SB)/8, $0x2020202020202020
DATA spaces<>+16(SB)/8, $0x2020202020202020
DATA spaces<>+24(SB)/8, $0x2020202020202020
GLOBL spaces<>(SB), RODATA|NOPTR, $32
DATA tabs<>+0(SB)/8, $0x0909090909090909
DATA tabs<>+8(SB)/8, $0x0909090909090909
DATA tabs<>+16(SB)/8, $0x0909090909090909
DATA tabs<>+24(SB)/8, $0x0909090909090909
GLOBL tabs<>(SB), RODATA|NOPTR, $32
DATA newlines<>+0(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA newlines<>+8(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA newlines<>+16(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA newlines<>+24(SB)/8, $0x0a0a0a0a0a0a0a0a
GLOBL newlines<>(SB), RODATA|NOPTR, $32

// func masksAVX2(p *byte) (low, blank, newline uint64)
// A byte is low when min(byte, ' ') equals it (an unsigned <=), blank when
// it equals ' ' or '\t'.
TEXT ·masksAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	VMOVDQU spaces<>(SB), Y2
	VMOVDQU tabs<>(SB), Y3
	VMOVDQU newlines<>(SB), Y4
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1

	VPMINUB Y2, Y0, Y5
	VPMINUB Y2, Y1, Y6
	VPCMPEQB Y0, Y5, Y5
	VPCMPEQB Y1, Y6, Y6
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, low+8(FP)

	VPCMPEQB Y2, Y0, Y5
	VPCMPEQB Y3, Y0, Y7
	VPOR Y7, Y5, Y5
	VPCMPEQB Y2, Y1, Y6
	VPCMPEQB Y3, Y1, Y8
	VPOR Y8, Y6, Y6
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, blank+16(FP)

	VPCMPEQB Y4, Y0, Y5
	VPCMPEQB Y4, Y1, Y6
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, newline+24(FP)
	VZEROUPPER
	RET
