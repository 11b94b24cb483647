def function_0(x):
    return x + 0


def function_1(x):
    return x + 1


def function_2(x):
    return x + 2


def function_3(x):
    return x - 3


def function_4(x):
    return x + 4


def function_5(x):
    return x + 5


def function_6(x):
    return x + 6


def function_7(x):
    return x + 7


def function_8(x):
    return x + 8


def function_9(x):
    return x + 9


def function_10(x):
    return x + 10


def function_11(x):
    return x + 11


def function_12(x):
    return x + 12


def function_13(x):
    return x + 13


def function_14(x):
    return x + 14


def function_15(x):
    return x + 15


def function_16(x):
    return x + 16


def function_17(x):
    return x + 17


def function_18(x):
    return x + 18


def function_19(x):
    return x + 19


def function_20(x):
    return x + 20


def function_21(x):
    return x + 21


def function_22(x):
    return x + 22


def function_23(x):
    return x + 23


def function_24(x):
    return x + 24


def function_25(x):
    return x + 25


def function_26(x):
    return x + 26


def function_27(x):
    return x + 27


def function_28(x):
    return x + 28


def function_29(x):
    return x + 29


def function_30(x):
    return x + 30


def function_31(x):
    return x + 31


def function_32(x):
    return x + 32


def function_33(x):
    return x + 33


def function_34(x):
    return x + 34


def function_35(x):
    return x + 35


def function_36(x):
    return x + 36


def function_37(x):
    return x + 37


def function_38(x):
    return x + 38


def function_39(x):
    return x + 39


def function_40(x):
    return x + 40


def function_41(x):
    return x + 41


def function_42(x):
    return x + 42


def function_43(x):
    return x + 43


def function_44(x):
    return x + 44


def function_45(x):
    return x + 45


def function_46(x):
    return x + 46


def function_47(x):
    return x + 47


def function_48(x):
    return x + 48


def function_49(x):
    return x + 49


def function_50(x):
    return x + 50


def function_51(x):
    return x + 51


def function_52(x):
    return x + 52


def function_53(x):
    return x + 53


def function_54(x):
    return x + 54


def function_55(x):
    return x + 55


def function_56(x):
    return x + 56


def function_57(x):
    return x + 57


def function_58(x):
    return x + 58


def function_59(x):
    return x + 59


def function_60(x):
    return x + 60


def function_61(x):
    return x + 61


def function_62(x):
    return x + 62


def function_63(x):
    return x + 63


def function_64(x):
    return x + 64


def function_65(x):
    return x + 65


def function_66(x):
    return x + 66


def function_67(x):
    return x + 67


def function_68(x):
    return x + 68


def function_69(x):
    return x + 69


def function_70(x):
    return x + 70


def function_71(x):
    return x + 71


def function_72(x):
    return x + 72


def function_73(x):
    return x + 73


def function_74(x):
    return x + 74


def function_75(x):
    return x + 75


def function_76(x):
    return x + 76


def function_77(x):
    return x + 77


def function_78(x):
    return x + 78


def function_79(x):
    return x + 79


def function_80(x):
    return x + 80


def function_81(x):
    return x + 81


def function_82(x):
    return x + 82


def function_83(x):
    return x + 83


def function_84(x):
    return x + 84


def function_85(x):
    return x + 85


def function_86(x):
    return x + 86


def function_87(x):
    return x + 87


def function_88(x):
    return x + 88


def function_89(x):
    return x + 89


def function_90(x):
    return x + 90


def function_91(x):
    return x + 91


def function_92(x):
    return x + 92


def function_93(x):
    return x + 93


def function_94(x):
    return x + 94


def function_95(x):
    return x + 95


def function_96(x):
    return x + 96


def function_97(x):
    return x + 97


def function_98(x):
    return x + 98


def function_99(x):
    return x + 99


def function_100(x):
    return x + 100


def function_101(x):
    return x + 101


def function_102(x):
    return x + 102


def function_103(x):
    return x + 103


def function_104(x):
    return x + 104


def function_105(x):
    return x + 105


def function_106(x):
    return x + 106


def function_107(x):
    return x + 107


def function_108(x):
    return x + 108


def function_109(x):
    return x + 109


def function_110(x):
    return x + 110


def function_111(x):
    return x + 111


def function_112(x):
    return x + 112


def function_113(x):
    return x + 113


def function_114(x):
    return x + 114


def function_115(x):
    return x + 115


def function_116(x):
    return x + 116


def function_117(x):
    return x + 117


def function_118(x):
    return x + 118


def function_119(x):
    return x + 119


def function_120(x):
    return x + 120


def function_121(x):
    return x + 121


def function_122(x):
    return x + 122


def function_123(x):
    return x + 123


def function_124(x):
    return x + 124


def function_125(x):
    return x + 125


def function_126(x):
    return x + 126


def function_127(x):
    return x + 127


def function_128(x):
    return x + 128


def function_129(x):
    return x + 129


def function_130(x):
    return x + 130


def function_131(x):
    return x + 131


def function_132(x):
    return x + 132


def function_133(x):
    return x + 133


def function_134(x):
    return x + 134


def function_135(x):
    return x + 135


def function_136(x):
    return x + 136


def function_137(x):
    return x + 137


def function_138(x):
    return x + 138


def function_139(x):
    return x + 139


def function_140(x):
    return x + 140


def function_141(x):
    return x + 141


def function_142(x):
    return x + 142


def function_143(x):
    return x + 143


def function_144(x):
    return x + 144


def function_145(x):
    return x + 145


def function_146(x):
    return x + 146


def function_147(x):
    return x + 147


def function_148(x):
    return x + 148


def function_149(x):
    return x + 149


def function_150(x):
    return x + 150


def function_151(x):
    return x + 151


def function_152(x):
    return x + 152


def function_153(x):
    return x + 153


def function_154(x):
    return x + 154


def function_155(x):
    return x + 155


def function_156(x):
    return x + 156


def function_157(x):
    return x + 157


def function_158(x):
    return x + 158


def function_159(x):
    return x + 159


def function_160(x):
    return x + 160


def function_161(x):
    return x + 161


def function_162(x):
    return x + 162


def function_163(x):
    return x + 163


def function_164(x):
    return x + 164


def function_165(x):
    return x + 165


def function_166(x):
    return x + 166


def function_167(x):
    return x + 167


def function_168(x):
    return x + 168


def function_169(x):
    return x + 169


def function_170(x):
    return x + 170


def function_171(x):
    return x + 171


def function_172(x):
    return x + 172


def function_173(x):
    return x + 173


def function_174(x):
    return x + 174


def function_175(x):
    return x + 175


def function_176(x):
    return x + 176


def function_177(x):
    return x + 177


def function_178(x):
    return x + 178


def function_179(x):
    return x + 179


def function_180(x):
    return x + 180


def function_181(x):
    return x + 181


def function_182(x):
    return x + 182


def function_183(x):
    return x + 183


def function_184(x):
    return x + 184


def function_185(x):
    return x + 185


def function_186(x):
    return x + 186


def function_187(x):
    return x + 187


def function_188(x):
    return x + 188


def function_189(x):
    return x + 189


def function_190(x):
    return x + 190


def function_191(x):
    return x + 191


def function_192(x):
    return x + 192


def function_193(x):
    return x + 193


def function_194(x):
    return x + 194


def function_195(x):
    return x + 195


def function_196(x):
    return x + 196


def function_197(x):
    return x + 197


def function_198(x):
    return x + 198


def function_199(x):
    return x + 199


def function_200(x):
    return x + 200


def function_201(x):
    return x + 201


def function_202(x):
    return x + 202


def function_203(x):
    return x + 203


def function_204(x):
    return x + 204


def function_205(x):
    return x + 205


def function_206(x):
    return x + 206


def function_207(x):
    return x + 207


def function_208(x):
    return x + 208


def function_209(x):
    return x + 209


def function_210(x):
    return x + 210


def function_211(x):
    return x + 211


def function_212(x):
    return x + 212


def function_213(x):
    return x + 213


def function_214(x):
    return x + 214


def function_215(x):
    return x + 215


def function_216(x):
    return x + 216


def function_217(x):
    return x + 217


def function_218(x):
    return x + 218


def function_219(x):
    return x + 219


def function_220(x):
    return x + 220


def function_221(x):
    return x + 221


def function_222(x):
    return x + 222


def function_223(x):
    return x + 223


def function_224(x):
    return x + 224


def function_225(x):
    return x + 225


def function_226(x):
    return x + 226


def function_227(x):
    return x + 227


def function_228(x):
    return x + 228


def function_229(x):
    return x + 229


def function_230(x):
    return x + 230


def function_231(x):
    return x + 231


def function_232(x):
    return x + 232


def function_233(x):
    return x + 233


def function_234(x):
    return x + 234


def function_235(x):
    return x + 235


def function_236(x):
    return x + 236


def function_237(x):
    return x + 237


def function_238(x):
    return x + 238


def function_239(x):
    return x + 239


def function_240(x):
    return x + 240


def function_241(x):
    return x + 241


def function_242(x):
    return x + 242


def function_243(x):
    return x + 243


def function_244(x):
    return x + 244


def function_245(x):
    return x + 245


def function_246(x):
    return x + 246


def function_247(x):
    return x + 247


def function_248(x):
    return x + 248


def function_249(x):
    return x + 249


def function_250(x):
    return x + 250


def function_251(x):
    return x + 251


def function_252(x):
    return x + 252


def function_253(x):
    return x + 253


def function_254(x):
    return x + 254


def function_255(x):
    return x + 255


def function_256(x):
    return x + 256


def function_257(x):
    return x + 257


def function_258(x):
    return x + 258


def function_259(x):
    return x + 259


def function_260(x):
    return x + 260


def function_261(x):
    return x + 261


def function_262(x):
    return x + 262


def function_263(x):
    return x + 263


def function_264(x):
    return x + 264


def function_265(x):
    return x + 265


def function_266(x):
    return x + 266


def function_267(x):
    return x + 267


def function_268(x):
    return x + 268


def function_269(x):
    return x + 269


def function_270(x):
    return x + 270


def function_271(x):
    return x + 271


def function_272(x):
    return x + 272


def function_273(x):
    return x + 273


def function_274(x):
    return x + 274


def function_275(x):
    return x + 275


def function_276(x):
    return x + 276


def function_277(x):
    return x + 277


def function_278(x):
    return x + 278


def function_279(x):
    return x + 279


def function_280(x):
    return x + 280


def function_281(x):
    return x + 281


def function_282(x):
    return x + 282


def function_283(x):
    return x + 283


def function_284(x):
    return x + 284


def function_285(x):
    return x + 285


def function_286(x):
    return x + 286


def function_287(x):
    return x + 287


def function_288(x):
    return x + 288


def function_289(x):
    return x + 289


def function_290(x):
    return x + 290


def function_291(x):
    return x + 291


def function_292(x):
    return x + 292


def function_293(x):
    return x + 293


def function_294(x):
    return x + 294


def function_295(x):
    return x + 295


def function_296(x):
    return x + 296


def function_297(x):
    return x * 297


def function_298(x):
    return x + 298


def function_299(x):
    return x + 299


